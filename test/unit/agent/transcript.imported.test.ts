// Imported SillyTavern messages in the Chat: each imported reply is a message of its own (a group
// chat's replies in a row, two replies in a row), with its speaker and its own ◀ ▶ over its
// swipes; Worldline's own turns still gather their assistant entries into one reply.
import { strict as assert } from 'node:assert';
import { buildTranscript, type TranscriptSource } from '../../../src/agent/transcript';
import type { AssistantEntry, ChainEntry, ImportedFrom, ToolEntry, UserEntry } from '../../../src/session/entries';
import { chatMessage } from '../../../src/protocol/chatModel';

const T = '2026-01-01T00:00:00.000Z';
const from = (name: string): ImportedFrom => ({ from: 'sillytavern', name });

function user(id: string, parentId: string | null, text: string, imported?: ImportedFrom): UserEntry {
  return { type: 'user', id, parentId, ts: T, text, ...(imported ? { imported } : {}) };
}

function reply(id: string, parentId: string | null, text: string, imported?: ImportedFrom, extra: Partial<AssistantEntry> = {}): AssistantEntry {
  return { type: 'assistant', id, parentId, ts: T, text, model: imported ? 'sillytavern' : 'm', finish: 'stop', ...(imported ? { imported } : {}), ...extra };
}

/** A source over a path and the whole tree (for the ◀ ▶ counts), some ids hidden. */
function source(path: ChainEntry[], others: ChainEntry[] = [], hidden: string[] = []): TranscriptSource {
  const all = [...path, ...others];
  return {
    path: () => path,
    textOf: (id) => {
      const e = all.find((x) => x.id === id);
      return e && (e.type === 'user' || e.type === 'assistant') ? e.text : '';
    },
    isHidden: (id) => hidden.includes(id),
    sideFor: () => undefined,
    variants: (id) => {
      const e = all.find((x) => x.id === id)!;
      const siblings = all.filter((x) => x.parentId === e.parentId && x.type === e.type);
      return { siblings, index: siblings.indexOf(e) };
    },
  };
}

describe('transcript of imported messages', () => {
  it('a group chat: replies in a row stay separate messages, each with its speaker', () => {
    const path = [
      user('u1', null, 'Hello all', from('Ann')),
      reply('a1', 'u1', 'Hi, I am Bob.', from('Bob')),
      reply('a2', 'a1', 'And I am Cleo.', from('Cleo')),
      reply('a3', 'a2', 'Bob again.', from('Bob')),
    ];
    const messages = buildTranscript(source(path));
    assert.deepEqual(messages.map((m) => [m.role, m.speaker, m.text, m.entryIds]), [
      ['user', 'Ann', 'Hello all', ['u1']],
      ['assistant', 'Bob', 'Hi, I am Bob.', ['a1']],
      ['assistant', 'Cleo', 'And I am Cleo.', ['a2']],
      ['assistant', 'Bob', 'Bob again.', ['a3']],
    ]);
  });

  it('each imported reply has its own ◀ ▶ over its swipes', () => {
    const path = [
      user('u1', null, 'Go on', from('Ann')),
      reply('a1', 'u1', 'swipe one', from('Bob')),
      reply('a2', 'a1', 'next reply, second swipe', from('Bob')),
    ];
    const others = [
      reply('a1b', 'u1', 'swipe two', from('Bob')),
      reply('a1c', 'u1', 'swipe three', from('Bob')),
      reply('a2a', 'a1', 'next reply, first swipe', from('Bob')),
    ];
    // The others are siblings listed after the path ones; order the second slot's so a2 is second.
    const src = source(path, others);
    const messages = buildTranscript(src);
    assert.equal(messages.length, 3);
    assert.deepEqual(messages[1]!.variant, { index: 0, count: 3 });
    assert.deepEqual(messages[2]!.variant, { index: 0, count: 2 });
    assert.equal(messages[1]!.id, 'a1', '◀ ▶ acts on the imported entry itself');
    assert.equal(messages[2]!.id, 'a2');
  });

  it('a hidden imported reply is hidden alone; its neighbour is not', () => {
    const path = [reply('a1', null, 'first', from('Bob')), reply('a2', 'a1', 'second', from('Bob'))];
    const messages = buildTranscript(source(path, [], ['a1']));
    assert.deepEqual(messages.map((m) => m.hidden), [true, false]);
  });

  it("Worldline's own turn still gathers its entries into one reply without a speaker", () => {
    const tool: ToolEntry = { type: 'tool', id: 't1', parentId: 'a1', ts: T, callId: 'c1', name: 'append_file', result: 'ok', isError: false };
    const path: ChainEntry[] = [
      user('u0', null, 'imported question', from('Ann')),
      reply('i1', 'u0', 'imported answer', from('Bob')),
      user('u1', 'i1', 'write on'),
      reply('a1', 'u1', '', undefined, { toolCalls: [{ id: 'c1', name: 'append_file', arguments: '{"path":"ch.md"}' }] }),
      tool,
      reply('a2', 't1', 'done'),
    ];
    const messages = buildTranscript(source(path));
    assert.deepEqual(messages.map((m) => [m.role, m.speaker, m.text]), [
      ['user', 'Ann', 'imported question'],
      ['assistant', 'Bob', 'imported answer'],
      ['user', undefined, 'write on'],
      ['assistant', undefined, 'done'],
    ]);
    assert.deepEqual(messages[3]!.entryIds, ['a1', 't1', 'a2']);
    assert.ok(!('speaker' in messages[2]!) && !('speaker' in messages[3]!));
  });

  it("a Worldline reply right after an imported one is not merged into it", () => {
    const path = [reply('i1', null, 'imported', from('Bob')), reply('a1', 'i1', 'own')];
    const messages = buildTranscript(source(path));
    assert.deepEqual(messages.map((m) => [m.speaker, m.text]), [['Bob', 'imported'], [undefined, 'own']]);
  });

  it('the page message carries the speaker (and none for a message without one)', () => {
    const messages = buildTranscript(source([user('u1', null, 'hi', from('<b>Ann</b>')), reply('a1', 'u1', 'yo')]));
    assert.equal(chatMessage(messages[0]!).speaker, '<b>Ann</b>');
    assert.ok(!('speaker' in chatMessage(messages[1]!)));
  });
});
