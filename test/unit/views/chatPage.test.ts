// The Chat page (media/chat.js) applies the host's keyed updates to its DOM: a changed message
// replaces only its own node (focus comes back to the same button, an open edit box elsewhere
// stays), streamed characters go onto the streaming block's text, the busy state turns buttons off
// without a rebuild, and a gap in the updates makes the page ask for a render once. Run over a
// small DOM (./miniDom.ts) with the real ChatMirror as the host.
import { strict as assert } from 'node:assert';
import { ChatMirror } from '../../../src/protocol/chatMirror';
import type { ChatMessage, ChatModel } from '../../../src/protocol/chat';
import { loadPage, type MiniElement, type Page } from './miniDom';

const LABELS = { you: 'You', agent: 'Agent', hide: 'Hide', unhide: 'Unhide', edit: 'Edit', empty: 'Nothing yet' };

function msg(id: string, over: Partial<ChatMessage> = {}): ChatMessage {
  return { id, role: id.startsWith('u') ? 'user' : 'assistant', text: `text ${id}`, hidden: false, edited: false, variant: { index: 0, count: 1 }, tools: [], ...over };
}

function model(messages: ChatMessage[], over: Partial<ChatModel> = {}): ChatModel {
  return { title: 'T', readOnly: false, busy: false, phase: 'idle', modelLabel: 'm', isDemo: false, messages, canRetry: false, ...over };
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
    button(nodes[2], 'hide').focus();
    messages = messages.map((m) => (m.id === 'u2' ? { ...m, hidden: true } : m));
    const update = mirror.update(model(messages));
    assert.equal(update?.type, 'patch');
    page.send(update);
    assert.deepEqual([list.children[0] === nodes[0], list.children[1] === nodes[1], list.children[2] === nodes[2], list.children[3] === nodes[3]], [true, true, false, true]);
    assert.ok(list.children[2]?.className.includes('hidden'));
    assert.equal(page.document.activeElement, button(list.children[2], 'hide'), 'focus on the same button (now Unhide)');
  });

  it('the busy state turns the locked buttons off and on without rebuilding a message', () => {
    page.send(mirror.update(model([msg('u1'), msg('a1')])));
    const first = list.children[0];
    page.send({ type: 'phase', phase: 'writing', busy: true });
    assert.equal(button(first, 'edit').disabled, true);
    assert.equal(button(first, 'copy').disabled, false, 'copy works while the agent writes');
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

  it('model text is text: markup in a reply never becomes elements', () => {
    page.send(mirror.update(model([msg('a1', { text: '<img src=x onerror=alert(1)><script>x</script>' })])));
    const node = list.children[0];
    assert.equal(node?.querySelectorAll('img').length, 0);
    assert.equal(node?.querySelectorAll('script').length, 0);
    assert.match(node?.textContent ?? '', /<img src=x/);
  });
});
