// An imported message's speaker is its label on the Chat page (instead of You / Agent), as text:
// a name holding markup never becomes elements.
import { strict as assert } from 'node:assert';
import { ChatMirror } from '../../../src/protocol/chatMirror';
import type { ChatMessage, ChatModel } from '../../../src/protocol/chat';
import { loadPage, type MiniElement } from './miniDom';

const LABELS = { you: 'You', agent: 'Agent', empty: 'Nothing yet', send: 'Send', moreActions: 'More actions' };

function msg(id: string, over: Partial<ChatMessage> = {}): ChatMessage {
  return { id, role: id.startsWith('u') ? 'user' : 'assistant', text: `text ${id}`, hidden: false, edited: false, variant: { index: 0, count: 1 }, tools: [], ...over };
}

function model(messages: ChatMessage[]): ChatModel {
  return { title: 'T', readOnly: false, busy: false, phase: 'idle', modelLabel: 'm', isDemo: false, messages, canRetry: false };
}

describe('chat page: imported speakers', () => {
  it('shows the speaker as the label, You / Agent without one, and markup as text', () => {
    const page = loadPage('chat', LABELS);
    const log = page.body.children.find((c) => c.id === 'log') as MiniElement;
    const list = log.children[1] as MiniElement;
    page.send(new ChatMirror().update(model([
      msg('u1', { speaker: 'Ann' }),
      msg('a1', { speaker: '<img src=x onerror=alert(1)>Bob' }),
      msg('a2', { speaker: 'Cleo', variant: { index: 1, count: 3 } }),
      msg('u2'),
      msg('a3'),
    ]))!);
    const names = list.children.map((n) => n.querySelector('.name')?.textContent);
    assert.deepEqual(names, ['Ann', '<img src=x onerror=alert(1)>Bob', 'Cleo', 'You', 'Agent']);
    assert.equal(list.querySelectorAll('img').length, 0);
    assert.match(list.children[2]?.querySelector('[data-testid="variants"]')?.textContent ?? '', /2\s*\/\s*3/);
  });
});
