// The Chat page (media/chat.js) applies the host's keyed updates to its DOM: a changed message
// replaces only its own node (focus comes back to the same button, an open edit box elsewhere
// stays), streamed characters go onto the streaming block's text, the busy state turns buttons off
// without a rebuild, and a gap in the updates makes the page ask for a render once. Whatever the
// update, a reader scrolled up keeps their place and one at the end stays there; the log is no live
// region, a finished reply is announced once; the toolbars rove and the "More actions" menu works
// from the keyboard; the wait before the first token counts its seconds; an instruction waiting for
// the scribe shows with Cancel; a lost checkpoint's actions say why they are off. Run over a small
// DOM (./miniDom.ts) with the real ChatMirror as the host.
import { strict as assert } from 'node:assert';
import { ChatMirror } from '../../../src/protocol/chatMirror';
import type { ChatMessage, ChatModel, ChatStream } from '../../../src/protocol/chat';
import { loadPage, type MiniElement, type MiniNode, type Page } from './miniDom';

const LABELS = {
  you: 'You', agent: 'Agent', hide: 'Hide', unhide: 'Unhide', edit: 'Edit', empty: 'Nothing yet', send: 'Send', copy: 'Copy', cancel: 'Cancel',
  cancelPending: 'Cancel this instruction', moreActions: 'More actions', hiddenMark: 'hidden from the model', waiting: 'Waiting for the scribe…',
  thinking: 'Thinking · {0} s', thought: 'Thought for {0} s', reasoning: 'Reasoning', replyFinished: 'Reply finished.', replyStopped: 'Reply stopped.',
  checkpointLost: 'checkpoint lost', checkpointLostWhy: "This turn's checkpoint was lost when the checkpoint store was rebuilt.",
  restoreProse: 'Restore Prose Only', restoreBoth: 'Restore Prose and Chat', showChanges: 'Show Changes', regenerate: 'Regenerate', branchHere: 'Branch here',
};

function msg(id: string, over: Partial<ChatMessage> = {}): ChatMessage {
  return { id, role: id.startsWith('u') ? 'user' : 'assistant', text: `text ${id}`, hidden: false, edited: false, variant: { index: 0, count: 1 }, tools: [], ...over };
}

function model(messages: ChatMessage[], over: Partial<ChatModel> = {}): ChatModel {
  return { title: 'T', readOnly: false, busy: false, phase: 'idle', modelLabel: 'm', isDemo: false, messages, canRetry: false, ...over };
}

/** A conversation long enough to scroll: u0, a1, u2, a3, ... */
function conversation(n: number): ChatMessage[] {
  return Array.from({ length: n }, (_, i) => msg(`${i % 2 ? 'a' : 'u'}${i}`));
}

describe('chat page: keyed updates', () => {
  let page: Page;
  let log: MiniElement;
  let list: MiniElement;
  let mirror: ChatMirror;
  const button = (node: MiniElement | undefined, action: string): MiniElement => {
    const b = node?.querySelector(`[data-action="${action}"]`);
    assert.ok(b, `no ${action} button`);
    return b;
  };
  const byTestId = (root: MiniElement, id: string): MiniElement | null => root.querySelector(`[data-testid="${id}"]`);
  const active = (): MiniNode => page.document.activeElement;

  beforeEach(() => {
    page = loadPage('chat', LABELS);
    log = page.body.children.find((c) => c.id === 'log') as MiniElement;
    list = log.children[1] as MiniElement;
    mirror = new ChatMirror();
  });

  it('asks for everything when it loads, then a change to one message replaces only its node and focus stays on its button', () => {
    assert.deepEqual(page.posted, [{ type: 'ready' }]);
    let messages = [msg('u1'), msg('a1'), msg('u2'), msg('a2')];
    page.send(mirror.update(model(messages)));
    const nodes = [...list.children];
    assert.deepEqual(nodes.map((n) => n.getAttribute('data-id')), ['u1', 'a1', 'u2', 'a2']);
    button(nodes[2], 'edit').focus();
    messages = messages.map((m) => (m.id === 'u2' ? { ...m, hidden: true } : m));
    const update = mirror.update(model(messages));
    assert.equal(update?.type, 'patch');
    page.send(update);
    assert.deepEqual([list.children[0] === nodes[0], list.children[1] === nodes[1], list.children[2] === nodes[2], list.children[3] === nodes[3]], [true, true, false, true]);
    assert.ok(list.children[2]?.className.includes('hidden'));
    assert.equal(active(), button(list.children[2], 'edit'), 'focus on the same button of the rebuilt message');
  });

  it('the busy state turns the locked buttons off and on without rebuilding a message; the tab stop and focus leave a button that turned off', () => {
    page.send(mirror.update(model([msg('u1'), msg('a1')])));
    const first = list.children[0];
    button(first, 'edit').focus();
    page.send({ type: 'phase', phase: 'writing', busy: true });
    assert.equal(button(first, 'edit').disabled, true);
    assert.equal(button(first, 'copy').disabled, false, 'copy works while the agent writes');
    assert.equal(button(first, 'copy').getAttribute('tabindex'), '0', 'the tab stop moved to Copy');
    assert.equal(active(), button(first, 'copy'), 'focus too');
    page.send({ type: 'phase', phase: 'idle', busy: false });
    assert.equal(button(first, 'edit').disabled, false);
    assert.equal(list.children[0], first);
  });

  it('streamed characters go onto the streaming block; the reply recorded, the block goes', () => {
    let messages = [msg('u1')];
    page.send(mirror.update(model(messages, { busy: true, phase: 'writing' }), { text: '雨', tools: [] }));
    const block = log.children[2]?.children[0];
    assert.equal(block?.getAttribute('data-testid'), 'streaming');
    page.send(mirror.updateStream({ text: '雨夜', tools: [{ text: 'append chapters/01.md', isError: false }] }));
    assert.equal(log.children[2]?.children[0], block, 'the same block');
    assert.match(block?.textContent ?? '', /雨夜/);
    assert.match(block?.textContent ?? '', /append chapters\/01\.md/);
    messages = [...messages, msg('a1', { text: '雨夜。' })];
    page.send(mirror.update(model(messages)));
    assert.equal(log.children[2]?.children.length, 0);
    assert.equal(list.children.length, 2);
  });

  it('another variant replaces the tail from where it differs; an open edit box elsewhere stays open', () => {
    let messages = [msg('u1'), msg('a1'), msg('u2'), msg('a2', { variant: { index: 0, count: 2 } })];
    page.send(mirror.update(model(messages)));
    button(list.children[0], 'edit').click();
    assert.ok(list.children[0]?.querySelector('textarea'));
    const kept = list.children[1];
    messages = [...messages.slice(0, 3), msg('a2b', { variant: { index: 1, count: 2 } })];
    page.send(mirror.update(model(messages)));
    assert.deepEqual(list.children.map((n) => n.getAttribute('data-id')), ['u1', 'a1', 'u2', 'a2b']);
    assert.equal(list.children[1], kept);
    assert.ok(list.children[0]?.querySelector('textarea'), 'the edit box is still open');
  });

  it('a gap in the updates makes the page ask once for a render, which sets everything right', () => {
    const messages = [msg('u1'), msg('a1')];
    page.send(mirror.update(model(messages)));
    page.posted.length = 0;
    mirror.update(model([...messages, msg('u2')])); // never arrives
    page.send(mirror.update(model([...messages, msg('u2'), msg('a2')])));
    page.send(mirror.update(model([...messages, msg('u2'), msg('a2'), msg('u3')])));
    assert.deepEqual(page.posted, [{ type: 'ready' }]);
    mirror.reset();
    page.send(mirror.update(model(messages, { notice: { kind: 'error', text: '出错了', action: 'retry' }, canRetry: true })));
    assert.equal(list.children.length, 2);
    assert.match(log.children[3]?.textContent ?? '', /出错了/);
    page.send(mirror.update(model([])));
    assert.match(log.children[0]?.textContent ?? '', /Nothing yet/);
  });

  it('model text is text: markup in a reply or its reasoning never becomes elements', () => {
    page.send(mirror.update(model([msg('a1', { text: '<img src=x onerror=alert(1)><script>x</script>' })], { busy: true }), { text: '', tools: [], reasoning: '<img src=y onerror=alert(2)>' }));
    const node = list.children[0];
    assert.equal(node?.querySelectorAll('img').length, 0);
    assert.equal(node?.querySelectorAll('script').length, 0);
    assert.match(node?.textContent ?? '', /<img src=x/);
    assert.equal(log.querySelectorAll('img').length, 0);
    assert.match(byTestId(log, 'reasoning')?.textContent ?? '', /<img src=y onerror/);
  });

  describe('the reader keeps their place', () => {
    /** The first message in view and how far below the top of the log it starts. */
    const inView = (): { id: string | null; offset: number } => {
      const n = list.children.find((c) => c.offsetTop + c.offsetHeight > log.scrollTop);
      assert.ok(n, 'a message in view');
      return { id: n.getAttribute('data-id'), offset: n.offsetTop - log.scrollTop };
    };
    const node = (id: string | null): MiniElement => list.children.find((c) => c.getAttribute('data-id') === id) as MiniElement;
    const atEnd = (): boolean => log.scrollTop === log.scrollHeight - log.clientHeight;

    it('scrolled up, a patch, a whole render and streamed text above or below leave the message in view where it was', () => {
      let messages = conversation(20);
      page.send(mirror.update(model(messages, { busy: true, phase: 'writing' }), { text: '雨', tools: [] }));
      assert.ok(log.scrollHeight > 3 * log.clientHeight, 'the log scrolls');
      assert.ok(atEnd(), 'a first render shows the end');
      log.scrollTop = 500;
      const seen = inView();
      // A message above the view grows (an edit): a patch. The view moves with it.
      messages = messages.map((m, i) => (i === 1 ? { ...m, text: '一\n二\n三\n四', edited: true } : m));
      const patch = mirror.update(model(messages, { busy: true, phase: 'writing' }), { text: '雨', tools: [] });
      assert.equal(patch?.type, 'patch');
      page.send(patch);
      assert.deepEqual(inView(), seen);
      assert.equal(log.scrollTop, 500 + 3 * 20, 'the view followed the taller message');
      // Streamed characters below do not move it.
      page.send(mirror.updateStream({ text: '雨夜\n很长\n的回复', tools: [] }));
      assert.deepEqual(inView(), seen);
      // Every message changes (the scribe's end, a hide of one of two): a whole render, place kept.
      messages = messages.map((m, i) => (i < 5 ? { ...m, hidden: true, text: `${m.text}\n又一行` } : { ...m, edited: true }));
      const render = mirror.update(model(messages));
      assert.equal(render?.type, 'render');
      page.send(render);
      assert.deepEqual(inView(), seen);
      assert.ok(!atEnd(), 'not thrown to the end');
      // A render after a gap (resync) too.
      mirror.reset();
      page.send(mirror.update(model(messages, { canRetry: true })));
      assert.equal(node(seen.id).offsetTop - log.scrollTop, seen.offset);
    });

    it('at the end, the view follows new messages, streamed text and a whole render', () => {
      let messages = conversation(12);
      page.send(mirror.update(model(messages, { busy: true, phase: 'writing' }), { text: '', tools: [] }));
      assert.ok(atEnd());
      page.send(mirror.updateStream({ text: '一\n二\n三\n四\n五', tools: [] }));
      assert.ok(atEnd(), 'after streamed lines');
      messages = [...messages, msg('a12', { text: '一\n二\n三\n四\n五' }), msg('u13')];
      page.send(mirror.update(model(messages)));
      assert.ok(atEnd(), 'after appended messages');
      mirror.reset();
      page.send(mirror.update(model([...messages, msg('a14', { text: '长\n长\n长' })])));
      assert.ok(atEnd(), 'after a whole render');
      const end = log.scrollTop;
      log.scrollTop = end - 25; // just past the "near the end" margin
      page.send(mirror.update(model([...messages, msg('a14', { text: '长\n长\n长' }), msg('u15')])));
      assert.equal(log.scrollTop, end - 25, 'scrolled a little up: kept');
    });
  });

  it('the log is no live region; it is aria-busy while a reply streams, and the finished reply is announced once', () => {
    assert.equal(log.getAttribute('aria-live'), null);
    assert.notEqual(log.getAttribute('role'), 'log', 'role=log would be a live region');
    const announcer = byTestId(page.body, 'announcer')!;
    assert.equal(announcer.getAttribute('role'), 'status');
    const heard: string[] = [];
    const send = (u: unknown): void => {
      page.send(u);
      if (announcer.textContent && announcer.textContent !== heard[heard.length - 1]) heard.push(announcer.textContent);
    };
    let messages = [msg('u1')];
    send(mirror.update(model(messages, { busy: true, phase: 'writing' }), { text: '', tools: [] }));
    assert.equal(log.getAttribute('aria-busy'), 'true');
    assert.equal(byTestId(log, 'streaming')?.getAttribute('aria-busy'), 'true');
    for (const text of ['雨', '雨夜', '雨夜，灯', '雨夜，灯下无人。']) send(mirror.updateStream({ text, tools: [] }));
    assert.deepEqual(heard, [], 'nothing said per token');
    messages = [...messages, msg('a1', { text: '雨夜，灯下无人。' })];
    send(mirror.update(model(messages)));
    assert.equal(log.getAttribute('aria-busy'), null);
    assert.deepEqual(heard, ['Reply finished. 雨夜，灯下无人。']);
    // What follows (the scribe's end, a hide, a render) says nothing more.
    send(mirror.update(model(messages, { phase: 'scribe', busy: true })));
    send(mirror.update(model(messages.map((m) => ({ ...m, hidden: true })))));
    assert.deepEqual(heard, ['Reply finished. 雨夜，灯下无人。']);
    // The next reply, stopped: the line is cleared when it starts and says so once at its end.
    send(mirror.update(model([...messages, msg('u2')], { busy: true, phase: 'writing' }), { text: '', tools: [] }));
    assert.equal(announcer.textContent, '');
    const long = '风'.repeat(200);
    send(mirror.update(model([...messages, msg('u2'), msg('a2', { text: long, finish: 'aborted' })])));
    assert.deepEqual(heard, ['Reply finished. 雨夜，灯下无人。', `Reply stopped. ${'风'.repeat(80)}…`], 'the first words only');
  });

  it("each toolbar is one tab stop; arrow keys, Home and End move within it and skip what is off", () => {
    page.send(mirror.update(model([msg('u1', { variant: { index: 0, count: 2 } }), msg('a1')])));
    const bar = list.children[0]!.querySelector('[role="toolbar"]')!;
    const stops = (): (string | null)[] => bar.querySelectorAll('[tabindex="0"]').map((b) => b.getAttribute('data-action'));
    const items = bar.querySelectorAll('[data-rove]').map((b) => b.getAttribute('data-action'));
    assert.deepEqual(items, ['prev', 'next', 'edit', 'copy', 'more'], 'an instruction: variants, Edit and Copy at rest, the rest in More');
    assert.deepEqual(stops(), ['next'], 'one tab stop, on the first button that is on (◀ is off at the first variant)');
    const at = (action: string): MiniElement => button(bar, action);
    at('next').focus();
    at('next').key('ArrowRight');
    assert.equal(active(), at('edit'));
    assert.deepEqual(stops(), ['edit'], 'the tab stop follows focus');
    at('edit').key('End');
    assert.equal(active(), at('more'));
    at('more').key('ArrowRight');
    assert.equal(active(), at('next'), 'wraps to the first that is on');
    at('next').key('ArrowLeft');
    assert.equal(active(), at('more'));
    at('more').key('Home');
    assert.equal(active(), at('next'));
    assert.equal(at('next').key('a'), true, 'other keys are left alone');
    const reply = list.children[1]!.querySelector('[role="toolbar"]')!;
    assert.deepEqual(reply.querySelectorAll('[data-rove]').map((b) => b.getAttribute('data-action')), ['regenerate', 'copy', 'more'], 'a reply: Regenerate and Copy at rest');
  });

  it('"More actions" opens a menu at its first item; arrows move, Escape closes it and focus goes back; an item runs and closes it', () => {
    const cp = { commit: 'abc', changed: 2 };
    let messages = [msg('u1'), msg('a1', { checkpoint: cp })];
    page.send(mirror.update(model(messages)));
    const more = button(list.children[1], 'more');
    assert.equal(more.getAttribute('aria-haspopup'), 'menu');
    assert.equal(more.getAttribute('aria-expanded'), 'false');
    assert.equal(list.children[1]!.querySelector('[role="menu"]'), null, 'built only when opened');
    more.focus();
    more.click();
    const menu = list.children[1]!.querySelector('[role="menu"]')!;
    assert.ok(menu);
    assert.equal(more.getAttribute('aria-expanded'), 'true');
    assert.equal(more.getAttribute('aria-controls'), menu.id);
    const items = menu.querySelectorAll('[role="menuitem"]');
    assert.deepEqual(items.map((i) => i.getAttribute('data-action')), ['edit', 'hide', 'branchHere', 'restoreProse', 'restoreBoth', 'showChanges']);
    assert.deepEqual(items.map((i) => i.textContent), ['Edit', 'Hide', 'Branch here', 'Restore Prose Only', 'Restore Prose and Chat', 'Show Changes'], 'labelled in words');
    assert.equal(active(), items[0]);
    items[0]!.key('ArrowDown');
    assert.equal(active(), items[1]);
    items[1]!.key('End');
    assert.equal(active(), items[5]);
    items[5]!.key('ArrowDown');
    assert.equal(active(), items[0], 'wraps');
    items[0]!.key('ArrowUp');
    assert.equal(active(), items[5]);
    items[5]!.key('Escape');
    assert.equal(list.children[1]!.querySelector('[role="menu"]'), null, 'closed');
    assert.equal(more.getAttribute('aria-expanded'), 'false');
    assert.equal(active(), more, 'focus back on the button');
    // ArrowUp on the button opens at the last item; focus leaving closes it.
    more.key('ArrowUp');
    assert.equal(active()?.parentNode?.childNodes.at(-1), active(), 'the last item');
    button(list.children[0], 'copy').focus();
    assert.equal(list.children[1]!.querySelector('[role="menu"]'), null, 'closed when focus left it');
    // Choosing Hide: the host is asked, the menu closes, focus is on the button; the rebuilt message keeps it there.
    more.key('ArrowDown');
    page.posted.length = 0;
    button(list.children[1], 'hide').click();
    assert.deepEqual(page.posted, [{ type: 'hide', id: 'a1', hidden: true }]);
    assert.equal(list.children[1]!.querySelector('[role="menu"]'), null);
    assert.equal(active(), more);
    messages = [messages[0]!, { ...messages[1]!, hidden: true }];
    page.send(mirror.update(model(messages)));
    assert.notEqual(list.children[1], more.parentNode?.parentNode?.parentNode, 'rebuilt');
    assert.equal(active(), button(list.children[1], 'more'), 'focus on the new "More actions"');
    const hidden = list.children[1]!;
    assert.match(byTestId(hidden, 'hidden-mark')?.textContent ?? '', /hidden from the model/);
    assert.ok(byTestId(hidden, 'hidden-mark')?.querySelector('.codicon-eye-closed'));
    // Edit from the menu opens the edit box; Cancel gives focus back to "More actions".
    button(hidden, 'more').click();
    button(hidden, 'edit').click();
    const box = list.children[1]!;
    assert.ok(box.querySelector('textarea'));
    box.querySelectorAll('button').find((b) => b.textContent === 'Cancel')!.click();
    assert.equal(active(), button(list.children[1], 'more'));
  });

  it('before the first token a thinking line counts the seconds from `since`, one text node once a second, and stops when text comes', () => {
    const since = page.clock.now - 3_000;
    const messages = [msg('u1')];
    const busy = model(messages, { busy: true, phase: 'writing' });
    page.send(mirror.update(busy, { text: '', tools: [], since }));
    const block = byTestId(log, 'streaming')!;
    const thinking = byTestId(block, 'thinking')!;
    assert.ok(thinking, 'a thinking line, not an empty bubble');
    assert.equal(thinking.textContent, 'Thinking · 3 s');
    assert.equal(block.querySelector('.body')?.hidden, true, 'no empty body');
    const label = thinking.children[1]!;
    const textNode = label.childNodes[0];
    page.clock.advance(2_000);
    assert.equal(thinking.textContent, 'Thinking · 5 s');
    assert.equal(label.childNodes[0], textNode, 'the same text node, changed in place');
    assert.equal(byTestId(log, 'streaming'), block, 'nothing else rebuilt');
    page.send(mirror.updateStream({ text: '雨', tools: [], since }));
    assert.equal(byTestId(block, 'thinking'), null, 'gone when text comes');
    assert.equal(block.querySelector('.body')?.hidden, false);
    assert.equal(page.clock.running, 0, 'the timer stopped');
    // The next step (after a tool) waits again, counting from its own start.
    page.send(mirror.updateStream({ text: '', tools: [], since: page.clock.now }));
    assert.equal(byTestId(block, 'thinking')?.textContent, 'Thinking · 0 s');
    page.clock.advance(1_000);
    assert.equal(byTestId(block, 'thinking')?.textContent, 'Thinking · 1 s');
    page.send(mirror.update(model([...messages, msg('a1')])));
    assert.equal(page.clock.running, 0, 'the block gone, no timer left');
  });

  it('streamed reasoning shows collapsed above the reply, its summary counting, then saying how long it took', () => {
    const since = page.clock.now;
    page.send(mirror.update(model([msg('u1')], { busy: true, phase: 'writing' }), { text: '', tools: [], since }));
    const stream: ChatStream = { text: '', tools: [], since, reasoning: '先想' };
    page.send(mirror.updateStream(stream));
    const details = byTestId(log, 'reasoning')!;
    assert.equal(details.tagName, 'DETAILS');
    assert.equal(details.open, false, 'collapsed');
    assert.equal(byTestId(log, 'thinking'), null, 'the summary carries the seconds instead');
    page.clock.advance(4_000);
    assert.equal(details.querySelector('summary')?.textContent, 'Thinking · 4 s');
    page.send(mirror.updateStream({ ...stream, reasoning: '先想一想人物' }));
    assert.equal(details.querySelector('.reasoning-text')?.textContent, '先想一想人物');
    page.clock.advance(2_000);
    page.send(mirror.updateStream({ ...stream, reasoning: '先想一想人物', text: '雨夜' }));
    assert.equal(byTestId(log, 'reasoning'), details, 'kept above the reply');
    assert.equal(details.querySelector('summary')?.textContent, 'Thought for 6 s');
    page.clock.advance(5_000);
    assert.equal(details.querySelector('summary')?.textContent, 'Thought for 6 s', 'no longer counting');
  });

  it('an instruction waiting for the scribe shows as pending with Cancel; Send is off while one waits and on during the scribe otherwise', () => {
    const composer = page.body.children.find((c) => c.id === 'composer')!;
    const input = composer.querySelector('textarea')!;
    const send = composer.querySelectorAll('button').find((b) => b.textContent === 'Send')!;
    const messages = [msg('u1'), msg('a1')];
    page.send(mirror.update(model(messages, { busy: true, phase: 'writing' })));
    assert.equal(send.disabled, true, 'off while the agent writes');
    page.send(mirror.update(model(messages, { busy: false, phase: 'scribe' })));
    page.send({ type: 'phase', phase: 'scribe', busy: true });
    assert.equal(send.disabled, false, 'on while only the scribe runs');
    input.value = '再写一段';
    page.posted.length = 0;
    input.key('Enter');
    assert.deepEqual(page.posted, [{ type: 'send', text: '再写一段' }]);
    page.send(mirror.update(model(messages, { busy: true, phase: 'scribe', pending: { text: '再写一段' } })));
    const pending = byTestId(log, 'pending')!;
    assert.match(pending.textContent, /再写一段/);
    assert.match(pending.textContent, /Waiting for the scribe…/);
    assert.equal(send.disabled, true, 'one waits: Send is off');
    input.value = '第三条';
    page.posted.length = 0;
    input.key('Enter');
    assert.deepEqual(page.posted, [], 'Enter sends nothing either');
    const cancel = pending.querySelector('button')!;
    assert.equal(cancel.getAttribute('aria-label'), 'Cancel this instruction');
    cancel.click();
    assert.deepEqual(page.posted, [{ type: 'cancelPending' }]);
    page.send(mirror.update(model(messages, { phase: 'scribe', busy: true })));
    page.send({ type: 'focusInput', text: '再写一段' });
    assert.equal(byTestId(log, 'pending'), null);
    assert.equal(input.value, '再写一段', 'the text is back in the composer');
    assert.equal(active(), input);
  });

  it('a quote from the editor (Send Selection to Chat) goes after the draft in the composer, never over it', () => {
    const input = page.body.children.find((c) => c.id === 'composer')!.querySelector('textarea')!;
    page.send(mirror.update(model([msg('u1'), msg('a1')])));
    input.value = '';
    page.send({ type: 'focusInput', text: 'chapters/01.md 第 3 行：\n> 雨下了一夜。\n\n', append: true });
    assert.equal(input.value, 'chapters/01.md 第 3 行：\n> 雨下了一夜。\n\n', 'an empty composer gets the quote');
    input.value = '我想让这段更冷一些';
    page.send({ type: 'focusInput', text: '> 灯灭了。\n\n', append: true });
    assert.equal(input.value, '我想让这段更冷一些\n\n> 灯灭了。\n\n', 'the draft stays, the quote after it');
    assert.equal(active(), input);
  });

  it("a turn whose checkpoint was lost says so, and its restore and compare actions are off with the reason", () => {
    const messages = [msg('u1'), msg('a1', { checkpoint: { commit: 'gone', changed: 1, lost: true } }), msg('u2'), msg('a2', { checkpoint: { commit: 'kept', changed: 1 } })];
    page.send(mirror.update(model(messages)));
    const lost = list.children[1]!;
    const badge = byTestId(lost, 'checkpoint-lost')!;
    assert.equal(badge.textContent, 'checkpoint lost');
    assert.equal(badge.getAttribute('title'), LABELS.checkpointLostWhy);
    assert.equal(byTestId(list.children[3]!, 'checkpoint-lost'), null);
    button(lost, 'more').click();
    page.posted.length = 0;
    for (const action of ['restoreProse', 'restoreBoth', 'showChanges']) {
      const item = button(lost, action);
      assert.equal(item.getAttribute('aria-disabled'), 'true', action);
      assert.equal(item.getAttribute('title'), LABELS.checkpointLostWhy, action);
      item.click();
    }
    assert.deepEqual(page.posted, [], 'nothing asked of the host');
    assert.equal(button(lost, 'hide').getAttribute('aria-disabled'), null, 'the other actions work');
    button(list.children[3], 'more').click();
    button(list.children[3], 'restoreBoth').click();
    assert.deepEqual(page.posted, [{ type: 'restore', id: 'a2', withChat: true }]);
  });
});
