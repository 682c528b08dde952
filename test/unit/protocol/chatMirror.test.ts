// The Chat page is kept in step by numbered updates that carry only what changed: whatever the
// transcript, the header and the streaming block do, applying the updates gives the page exactly
// the latest model; an append sends the new message only, a token its characters only; a lost
// update is found at the next one, and a render sets things right.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { ChatMirror, applyUpdate, sameJson, type ChatPageState, type ChatUpdate } from '../../../src/protocol/chatMirror';
import type { ChatMessage, ChatModel, ChatStream } from '../../../src/protocol/chat';
import { runs } from '../long-mode';

let ids = 0;
function message(over: Partial<ChatMessage> = {}): ChatMessage {
  return { id: `m${++ids}`, role: ids % 2 ? 'user' : 'assistant', text: `第${ids}句`, hidden: false, edited: false, variant: { index: 0, count: 1 }, tools: [], ...over };
}

function model(messages: ChatMessage[], over: Partial<ChatModel> = {}): ChatModel {
  return { title: '雨夜', readOnly: false, busy: false, phase: 'idle', modelLabel: 'm', isDemo: false, messages, canRetry: false, ...over };
}

/** What the page holds, as posting would give it (undefined fields gone). */
function posted<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function apply(page: ChatPageState | undefined, update: ChatUpdate): ChatPageState {
  const next = applyUpdate(page ? posted(page) : undefined, posted(update));
  assert.notEqual(next, 'resync', `update ${JSON.stringify(update).slice(0, 200)} did not fit`);
  return next as ChatPageState;
}

function assertShows(page: ChatPageState | undefined, m: ChatModel, stream: ChatStream | undefined): void {
  assert.ok(page);
  assert.deepEqual(posted(page.model), posted(m));
  assert.deepEqual(page.stream ? posted(page.stream) : undefined, stream ? posted(stream) : undefined);
}

describe('chat mirror', () => {
  it('a page that holds nothing gets a render; then nothing changed sends nothing', () => {
    const mirror = new ChatMirror();
    const m = model([message(), message()]);
    const first = mirror.update(m);
    assert.equal(first?.type, 'render');
    assert.equal(mirror.update(model([...m.messages])), undefined, 'equal content, new objects: nothing to send');
    mirror.reset();
    assert.equal(mirror.update(m)?.type, 'render', 'after a reset: everything again');
  });

  it('an appended message sends that message only; a changed one is replaced at its place; the header only when it changed', () => {
    const mirror = new ChatMirror();
    const messages = Array.from({ length: 50 }, () => message());
    let page = apply(undefined, mirror.update(model(messages))!);
    const added = message({ role: 'user', text: '写雨停' });
    const one = mirror.update(model([...messages, added]))!;
    assert.deepEqual({ ...one, seq: 0, base: 0 }, { type: 'patch', seq: 0, base: 0, splice: { keep: 50, append: [added] } });
    page = apply(page, one);

    const hidden = { ...messages[10]!, hidden: true };
    const next = [...messages.slice(0, 10), hidden, ...messages.slice(11), added];
    const two = mirror.update(model(next, { busy: true, phase: 'writing' }))!;
    assert.equal(two.type, 'patch');
    if (two.type !== 'patch') return;
    assert.deepEqual(two.replace, [{ at: 10, message: hidden }]);
    assert.equal(two.splice, undefined);
    assert.deepEqual([two.head?.busy, two.head?.phase], [true, 'writing']);
    page = apply(page, two);
    assertShows(page, model(next, { busy: true, phase: 'writing' }), undefined);
  });

  it('going to another variant drops the old tail and appends the new one; a change as large as the page is a render', () => {
    const mirror = new ChatMirror();
    const messages = Array.from({ length: 20 }, () => message());
    let page = apply(undefined, mirror.update(model(messages))!);
    const variant = [...messages.slice(0, 19), message({ variant: { index: 1, count: 2 } })];
    const update = mirror.update(model(variant))!;
    assert.equal(update.type, 'patch');
    if (update.type === 'patch') assert.deepEqual(update.splice, { keep: 19, append: [variant[19]] });
    page = apply(page, update);
    assertShows(page, model(variant), undefined);
    const elsewhere = Array.from({ length: 20 }, () => message());
    assert.equal(mirror.update(model(elsewhere))?.type, 'render', 'a branch with nothing in common: a render');
  });

  it('a streamed token sends the characters it added; a restarted block sends itself; a block that ends is dropped', () => {
    const mirror = new ChatMirror();
    const m = model([message()], { busy: true });
    let page = apply(undefined, mirror.update(m, { text: '雨', tools: [] })!);
    const token = mirror.updateStream({ text: '雨夜', tools: [] })!;
    assert.deepEqual({ ...token, seq: 0, base: 0 }, { type: 'stream', seq: 0, base: 0, from: 1, text: '夜', tools: [] });
    page = apply(page, token);
    const tool = { text: 'append chapters/01.md', isError: false };
    page = apply(page, mirror.updateStream({ text: '雨夜', tools: [tool] })!);
    assert.equal(mirror.updateStream({ text: '雨夜', tools: [tool] }), undefined, 'unchanged: nothing');
    const restart = mirror.updateStream({ text: '写', tools: [] })!;
    assert.equal(restart.type === 'stream' && restart.from, 0);
    page = apply(page, restart);
    assertShows(page, m, { text: '写', tools: [] });
    const gone = mirror.updateStream(undefined)!;
    assert.deepEqual(gone.type === 'patch' && gone.stream, null);
    page = apply(page, gone);
    assertShows(page, m, undefined);
  });

  it('reasoning streams like the text, as what it added; `since` is sent whole; a block that loses its reasoning says so', () => {
    const mirror = new ChatMirror();
    const m = model([message()], { busy: true });
    let page = apply(undefined, mirror.update(m, { text: '', tools: [], since: 1000 })!);
    const first = mirror.updateStream({ text: '', tools: [], since: 1000, reasoning: '先想' })!;
    assert.deepEqual({ ...first, seq: 0, base: 0 }, { type: 'stream', seq: 0, base: 0, from: 0, text: '', tools: [], reasoning: { from: 0, text: '先想' }, since: 1000 });
    page = apply(page, first);
    const more = mirror.updateStream({ text: '', tools: [], since: 1000, reasoning: '先想人物' })!;
    assert.deepEqual(more.type === 'stream' && more.reasoning, { from: 2, text: '人物' }, 'only the added characters');
    page = apply(page, more);
    const text = mirror.updateStream({ text: '雨', tools: [], since: 1000, reasoning: '先想人物' })!;
    assert.deepEqual(text.type === 'stream' && text.reasoning, { from: 4, text: '' }, 'unchanged reasoning costs nothing but its length');
    page = apply(page, text);
    assertShows(page, m, { text: '雨', tools: [], since: 1000, reasoning: '先想人物' });
    assert.equal(mirror.updateStream({ text: '雨', tools: [], since: 1000, reasoning: '先想人物' }), undefined, 'unchanged: nothing');
    const step = mirror.updateStream({ text: '', tools: [], since: 5000 })!;
    assert.equal(step.type === 'stream' && step.reasoning, undefined, 'the next step has none');
    page = apply(page, step);
    assertShows(page, m, { text: '', tools: [], since: 5000 });
    assert.equal(mirror.updateStream({ text: '', tools: [], since: 5000, reasoning: '' }), undefined, 'an empty reasoning is none');
    mirror.reset();
    const again = mirror.update(m, { text: '', tools: [], reasoning: '' })!;
    assert.deepEqual(again.type === 'render' && again.stream, { text: '', tools: [] }, 'a render sends no empty reasoning');
  });

  it('an update that did not arrive is found at the next one: the page asks again and a render follows', () => {
    const mirror = new ChatMirror();
    const messages = [message(), message()];
    const page = apply(undefined, mirror.update(model(messages))!);
    mirror.update(model([...messages, message()])); // lost on the way
    const next = mirror.update(model([...messages, message()]))!;
    assert.equal(applyUpdate(page, next), 'resync');
    assert.equal(applyUpdate(undefined, next), 'resync', 'a page holding nothing asks too');
    mirror.reset();
    assert.equal(mirror.update(model(messages))?.type, 'render');
  });

  it('property: any history of transcripts, headers and streams, with updates that did not arrive, leaves the page showing the last one', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), n: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('change' as const), at: fc.nat(), field: fc.constantFrom('text', 'hidden', 'tools', 'usage', 'checkpoint', 'variant') }),
      fc.record({ kind: fc.constant('branch' as const), at: fc.nat(), n: fc.integer({ min: 0, max: 4 }) }),
      fc.record({ kind: fc.constant('head' as const), busy: fc.boolean(), notice: fc.boolean() }),
      fc.record({ kind: fc.constant('stream' as const), how: fc.constantFrom('append', 'restart', 'end', 'tool', 'reason', 'rethink', 'unreason', 'since') }),
      fc.record({ kind: fc.constant('lose' as const) }),
    );
    fc.assert(fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      const mirror = new ChatMirror();
      let messages: ChatMessage[] = [message()];
      let head: Partial<ChatModel> = {};
      let stream: ChatStream | undefined;
      let page: ChatPageState | undefined;
      let lose = false;
      const deliver = (update: ChatUpdate | undefined): void => {
        if (!update) return;
        if (lose) {
          // postMessage said it was not delivered: the host knows the page is behind (src/views/chatView.ts).
          lose = false;
          mirror.reset();
          return;
        }
        const next = applyUpdate(page ? posted(page) : undefined, posted(update));
        if (next === 'resync') {
          mirror.reset();
          deliver(mirror.update(model(messages, head), stream));
        } else {
          page = next;
        }
      };
      deliver(mirror.update(model(messages, head), stream));
      for (const o of ops) {
        if (o.kind === 'append') messages = [...messages, ...Array.from({ length: o.n }, () => message())];
        else if (o.kind === 'change' && messages.length > 0) {
          const at = o.at % messages.length;
          const m = messages[at]!;
          const changed: ChatMessage = o.field === 'text' ? { ...m, text: m.text + '又' }
            : o.field === 'hidden' ? { ...m, hidden: !m.hidden }
              : o.field === 'tools' ? { ...m, tools: [...m.tools, { text: 'write', isError: false, path: 'chapters/01.md' }] }
                : o.field === 'usage' ? { ...m, usage: { prompt: 10, completion: 2, cached: 5, label: '10 prompt tokens' } }
                  : o.field === 'checkpoint' ? { ...m, checkpoint: { commit: 'abc', changed: 1 } }
                    : { ...m, variant: { index: 0, count: m.variant.count + 1 } };
          messages = messages.map((x, i) => (i === at ? changed : x));
        } else if (o.kind === 'branch') {
          messages = [...messages.slice(0, o.at % (messages.length + 1)), ...Array.from({ length: o.n }, () => message())];
        } else if (o.kind === 'head') {
          head = { busy: o.busy, ...(o.notice ? { notice: { kind: 'error' as const, text: '出错了', action: 'retry' as const } } : {}) };
        } else if (o.kind === 'stream') {
          const s: ChatStream = stream ?? { text: '', tools: [] };
          stream = o.how === 'end' ? undefined
            : o.how === 'restart' ? { text: '', tools: [] }
              : o.how === 'tool' ? { ...s, tools: [...s.tools, { text: 'append', isError: false }] }
                : o.how === 'reason' ? { ...s, reasoning: (s.reasoning ?? '') + '想' }
                  : o.how === 'rethink' ? { ...s, reasoning: `重${s.reasoning ?? ''}` }
                  : o.how === 'unreason' ? { text: s.text, tools: s.tools, ...(s.since !== undefined ? { since: s.since } : {}) }
                    : o.how === 'since' ? { ...s, since: (s.since ?? 0) + 1000 }
                      : { ...s, text: s.text + '雨' };
          deliver(mirror.updateStream(stream));
          continue;
        } else if (o.kind === 'lose') {
          lose = true;
          continue;
        }
        deliver(mirror.update(model(messages, head), stream));
      }
      lose = false;
      deliver(mirror.update(model(messages, head), stream));
      assertShows(page, model(messages, head), stream);
    }), { numRuns: runs(300, 10_000) });
  });

  it('sameJson: a missing field and an undefined one are the same; arrays and objects compare by content', () => {
    assert.ok(sameJson({ a: 1, b: undefined }, { a: 1 }));
    assert.ok(sameJson({ a: [1, { b: '雨' }] }, { a: [1, { b: '雨' }] }));
    assert.ok(!sameJson({ a: [1] }, { a: [1, 2] }));
    assert.ok(!sameJson({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!sameJson([], {}));
    assert.ok(!sameJson(null, {}));
    assert.ok(!sameJson({ a: '1' }, { a: 1 }));
  });
});

describe('chat mirror: what was marked decides what is built', () => {
  it('a streamed token builds no model; a model mark does; nothing marked sends nothing; a page that knows nothing gets a render', () => {
    const mirror = new ChatMirror();
    let built = 0;
    let stream: ChatStream = { text: '雨', tools: [] };
    const busy = model([message()], { busy: true });
    const sources = { model: () => (built++, busy), stream: () => stream };
    assert.equal(mirror.next(sources)?.type, 'render', 'at first the page knows nothing');
    assert.equal(built, 1);
    assert.equal(mirror.next(sources), undefined, 'nothing marked');
    stream = { text: '雨下', tools: [] };
    mirror.markStream();
    assert.equal(mirror.next(sources)?.type, 'stream');
    assert.equal(built, 1, 'no model for a token');
    mirror.markModel();
    mirror.next(sources);
    assert.equal(built, 2);
    mirror.reset();
    assert.equal(mirror.next(sources)?.type, 'render', 'after a reset, marked or not');
  });
});
