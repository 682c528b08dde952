// The Chat page's model from plain inputs, over a real session file and the real Branch: the title
// rules, the model label (none chosen, the demo model), busy and phase, the messages with their
// checkpoints, the notice, the streaming block without the tool lines already recorded, and the
// command a page button runs.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import type { Text } from '../../../src/common/text';
import { ChatModelCache, chatModel, chatStream, checkpointCommand, phaseMessage, type ChatStory } from '../../../src/protocol/chatModel';
import type { ChatModel } from '../../../src/protocol/chat';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { branchOf, type BranchOptions } from '../../../src/story';
import { assistant, removeTempDirs, tempDir, tool, user } from '../session/helpers';
import { bundle } from '../fixtures/translation';

const OPTIONS: BranchOptions = { opening: openingState({ time: '开场', location: '客栈' }), lang: 'zh' };

/** The shell's translator in a zh-cn window, recording what it was asked. */
function zh(asked: Text[] = []): (t: Text) => string {
  return (t) => {
    asked.push(t);
    assert.ok(t.message in bundle, `no translation for ${t.message}`);
    return bundle[t.message]!;
  };
}

function storyOf(session: Session, over: Partial<Omit<ChatStory, 'branch'>> = {}): ChatStory {
  return { busy: false, phase: 'idle', canRetry: false, ...over, branch: () => branchOf(session, OPTIONS) };
}

describe('chat model', () => {
  let session: Session;
  beforeEach(async () => {
    session = await Session.create(path.join(tempDir('wl-chatmodel-'), 's.jsonl'), { id: 's', title: '雨夜' });
  });
  afterEach(async () => {
    await session.close();
    removeTempDirs();
  });

  it('with nothing open: "Worldline", no messages, idle, and "no model selected" in the window language', () => {
    const asked: Text[] = [];
    const model = chatModel({ story: undefined, session: undefined, novelTitle: undefined, model: '' }, zh(asked));
    assert.deepEqual(model, {
      title: 'Worldline', readOnly: false, busy: false, phase: 'idle', modelLabel: bundle['no model selected'], isDemo: false, messages: [], canRetry: false,
    } satisfies ChatModel);
    assert.deepEqual(asked.map((t) => t.message), ['no model selected']);
  });

  it('the title: the session, else the novel, else "Chat" for a novel without a title', () => {
    const say = zh();
    const base = { story: undefined, model: 'gpt' };
    assert.equal(chatModel({ ...base, session: { title: '第一卷', readOnly: true }, novelTitle: '书名' }, say).title, '第一卷');
    assert.equal(chatModel({ ...base, session: undefined, novelTitle: '书名' }, say).title, '书名');
    assert.equal(chatModel({ ...base, session: undefined, novelTitle: '' }, say).title, bundle['Chat']);
    assert.equal(chatModel({ ...base, session: { title: '卷', readOnly: true }, novelTitle: '' }, say).readOnly, true);
  });

  it('the model label is the model itself; the demo model is flagged, not renamed', () => {
    const asked: Text[] = [];
    const at = (model: string) => chatModel({ story: undefined, session: undefined, novelTitle: 'x', model }, zh(asked));
    assert.deepEqual([at('gpt-4o').modelLabel, at('gpt-4o').isDemo], ['gpt-4o', false]);
    assert.deepEqual([at('worldline-demo').modelLabel, at('worldline-demo').isDemo], ['worldline-demo', true]);
    assert.equal(at('worldline-demo-slow').isDemo, true);
    assert.equal(at('worldline-demonstration').isDemo, false);
    assert.deepEqual(asked, [], 'no word asked for while a model is set');
  });

  it("the messages of the branch, a reply's checkpoint as its commit and how many files it changed; busy, phase, retry, notice", async () => {
    await session.append(user('写雨夜'));
    const reply = await session.append(assistant('雨下了。'));
    await session.append({ type: 'checkpoint', commit: 'abc123', ref: 'refs/worldline/t1', changed: ['chapters/01.md', 'chapters/02.md'] });
    await session.appendSide({ type: 'hide', targetId: reply.id, hidden: true });
    const notice = { kind: 'info' as const, text: '停了', action: 'retry' as const };
    const model = chatModel({ story: storyOf(session, { busy: true, phase: 'scribe', canRetry: true }), session, novelTitle: 'x', model: 'm', notice }, zh());
    assert.equal(model.title, '雨夜');
    assert.deepEqual([model.busy, model.phase, model.canRetry], [true, 'scribe', true]);
    assert.deepEqual(model.messages.map((m) => [m.role, m.text, m.hidden, m.checkpoint]), [
      ['user', '写雨夜', false, undefined],
      ['assistant', '雨下了。', true, { commit: 'abc123', changed: 2 }],
    ]);
    assert.deepEqual(model.notice, notice);
    assert.ok(!('notice' in chatModel({ story: undefined, session, novelTitle: 'x', model: 'm', notice: undefined }, zh())), 'no notice: no key');
  });

  it('kept between refreshes, the model is the one built whole, through appends, hides, edits, variants and a new price list; an unchanged message is the same object', async () => {
    const cache = new ChatModelCache();
    const say = zh();
    let pricing = (model: string | undefined) => (model && model !== 'unpriced-model' ? { input: 1, cachedInput: 0.5, output: 2, currency: 'USD' as const } : undefined);
    const both = () => {
      const inputs = { story: storyOf(session), session, novelTitle: 'x', model: 'm', pricing };
      const kept = chatModel(inputs, say, cache);
      assert.deepEqual(kept, chatModel(inputs, say));
      return kept;
    };
    const u = await session.append(user('写雨夜'));
    const usage = { promptTokens: 100, completionTokens: 10, cachedTokens: 40 };
    await session.append(assistant('', { toolCalls: [{ id: 'c1', name: 'append_file', arguments: '{"path":"chapters/01.md"}' }], usage }));
    await session.append(tool('c1', 'ok'));
    const reply = await session.append(assistant('雨下了。', { usage }));
    const first = both();
    assert.equal(first.messages[1]?.usage?.prompt, 200);
    await session.append(user('再写'));
    both();
    // The same transcript message (the kept transcript gives it again when it did not change): the same page message.
    const b = branchOf(session, OPTIONS);
    const same: ChatStory = { busy: false, phase: 'idle', canRetry: false, branch: () => ({ transcript: b.transcript, path: b.path, entry: (id) => b.entry(id) }) };
    const again = () => chatModel({ story: same, session, novelTitle: 'x', model: 'm', pricing }, say, cache).messages;
    const [one, two] = [again(), again()];
    assert.ok(one.length === 3 && one.every((m, i) => m === two[i]), 'unchanged: the same message objects');
    await session.appendSide({ type: 'hide', targetId: u.id, hidden: true });
    assert.equal(both().messages[0]?.hidden, true);
    await session.appendSide({ type: 'edit', targetId: reply.id, text: '雨停了。' });
    assert.equal(both().messages[1]?.text, '雨停了。');
    await session.navigate(u.id);
    await session.append(assistant('另一种写法。', { usage }));
    assert.deepEqual(both().messages[1]?.variant, { index: 1, count: 2 });
    assert.match(both().sessionUsage ?? '', /\$/, 'every call priced: the session has a cost');
    await session.append(assistant('不知价钱的模型。', { usage, model: 'unpriced-model' }));
    assert.doesNotMatch(both().sessionUsage ?? '', /\$/, 'one call without a price: no cost for the session');
    pricing = () => undefined;
    assert.equal(both().messages[1]?.usage?.cost, undefined, 'a new price list: costs again');
  });

  it('the streaming block leaves out the tool lines whose results are recorded', async () => {
    await session.append(user('写'));
    assert.equal(chatStream(storyOf(session)), undefined, 'no stream');
    assert.equal(chatStream(undefined), undefined, 'no story');
    await session.append(assistant('', { toolCalls: [{ id: 'c1', name: 'append_file', arguments: '{}' }, { id: 'c2', name: 'append_file', arguments: '{}' }] }));
    const tools = [{ text: 'append chapters/01.md', isError: false }, { text: 'append chapters/02.md', isError: false }];
    const streaming = storyOf(session, { stream: { text: '雨', tools } });
    assert.deepEqual(chatStream(streaming), { text: '雨', tools });
    await session.append(tool('c1', 'ok'));
    assert.deepEqual(chatStream(streaming), { text: '雨', tools: [tools[1]] });
    await session.append(tool('c2', 'ok'));
    assert.deepEqual(chatStream(streaming)?.tools, []);
  });

  it('the streaming block carries the reasoning and when the step began; an empty reasoning is none', async () => {
    await session.append(user('写'));
    assert.deepEqual(chatStream(storyOf(session, { stream: { text: '', tools: [], reasoning: '先想人物', since: 1234 } })), { text: '', tools: [], reasoning: '先想人物', since: 1234 });
    const bare = chatStream(storyOf(session, { stream: { text: '雨', tools: [], reasoning: '' } }));
    assert.deepEqual(bare, { text: '雨', tools: [] });
    assert.ok(bare && !('reasoning' in bare) && !('since' in bare), 'no empty or undefined keys');
  });

  it('the instruction waiting for the scribe is in the model; none waiting, no key', () => {
    const story = (pending?: { text: string }): ChatStory => ({ busy: false, phase: 'scribe', canRetry: false, pending, branch: () => branchOf(session, OPTIONS) });
    const at = (s: ChatStory) => chatModel({ story: s, session, novelTitle: 'x', model: 'm' }, zh());
    assert.deepEqual(at(story({ text: '再写一段' })).pending, { text: '再写一段' });
    assert.ok(!('pending' in at(story())));
  });

  it("a turn whose checkpoint the store lost is marked so, built whole or kept; the mark goes when the set no longer has it", async () => {
    await session.append(user('写雨夜'));
    await session.append(assistant('雨下了。'));
    await session.append({ type: 'checkpoint', commit: 'gone1', ref: 'refs/worldline/t1', changed: ['chapters/01.md'] });
    await session.append(user('再写'));
    await session.append(assistant('雨停了。'));
    await session.append({ type: 'checkpoint', commit: 'kept2', ref: 'refs/worldline/t2', changed: ['chapters/01.md'] });
    const cache = new ChatModelCache();
    const say = zh();
    let lost: ReadonlySet<string> = new Set(['gone1']);
    const inputs = () => ({ story: { ...storyOf(session), lostCheckpoints: lost }, session, novelTitle: 'x', model: 'm' });
    const kept = chatModel(inputs(), say, cache);
    assert.deepEqual(kept, chatModel(inputs(), say));
    assert.deepEqual(kept.messages.map((m) => m.checkpoint), [undefined, { commit: 'gone1', changed: 1, lost: true }, undefined, { commit: 'kept2', changed: 1 }]);
    const again = chatModel(inputs(), say, cache);
    assert.ok(again.messages.every((m, i) => m === kept.messages[i]), 'while nothing changes, the same message objects (the mirror sends nothing)');
    lost = new Set();
    assert.deepEqual(chatModel(inputs(), say, cache).messages[1]?.checkpoint, { commit: 'gone1', changed: 1 });
  });

  it('the page counts as busy in every phase but idle, and while a turn runs', () => {
    const story = (busy: boolean, phase: ChatStory['phase']): ChatStory => ({ busy, phase, canRetry: false, branch: () => { throw new Error('not read'); } });
    assert.deepEqual(phaseMessage(undefined), { type: 'phase', phase: 'idle', busy: false });
    assert.deepEqual(phaseMessage(story(false, 'idle')), { type: 'phase', phase: 'idle', busy: false });
    assert.deepEqual(phaseMessage(story(true, 'idle')), { type: 'phase', phase: 'idle', busy: true });
    for (const phase of ['writing', 'tool', 'scribe'] as const) assert.equal(phaseMessage(story(false, phase)).busy, true, phase);
  });

  it('the checkpoint buttons run their commands', () => {
    assert.equal(checkpointCommand({ type: 'showChanges', id: 'r' }), 'worldline.showTurnChanges');
    assert.equal(checkpointCommand({ type: 'restore', id: 'r', withChat: true }), 'worldline.restoreProseAndChat');
    assert.equal(checkpointCommand({ type: 'restore', id: 'r', withChat: false }), 'worldline.restoreProseOnly');
  });
});
