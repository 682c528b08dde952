// Export back to SillyTavern: the current header and message shape, export → read giving the same
// messages for every fixture, a Worldline branch (native turns, variants, edits, hides) as export
// messages, and the whole round trip import → session → export → import giving the same branch.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  branchToExport, chatToExport, exportChat, metadataFromState, type BranchReader, type ExportMessage,
} from '../../../../src/import/chat/export';
import { sendDateIso } from '../../../../src/import/chat/dates';
import { isGroupJsonError, readChatFile, readGroupJson } from '../../../../src/import/chat/read';
import { importChats } from '../../../../src/import/chat/sessionLines';
import { AUTHORS_NOTE_VARIABLE, type ChatFile, type ChatMessage } from '../../../../src/import/chat/types';
import { Session } from '../../../../src/session/session';
import { runs } from '../../long-mode';
import { removeTempDirs, tempDir } from '../../session/helpers';

const chats = path.resolve(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'sillytavern', 'chats');
const NOW = Date.UTC(2026, 11, 2, 8, 0, 0);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function readFixture(file: string): ChatFile {
  const groupFile = path.join(chats, 'group.json');
  const g = file.startsWith('2024-') || file.startsWith('group-') ? readGroupJson(fs.readFileSync(groupFile, 'utf8')) : undefined;
  return readChatFile({
    name: path.basename(file, '.jsonl'),
    text: fs.readFileSync(path.join(chats, file), 'utf8'),
    ...(g && !isGroupJsonError(g) ? { group: g } : {}),
  });
}
const fixtureFiles = (dir = chats): string[] =>
  fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => path.relative(chats, path.join(dir, f)));
const allFixtures = [...fixtureFiles(), ...fixtureFiles(path.join(chats, 'Aster'))];

/** A message without its line number (which export changes by design). */
const content = ({ line: _line, ...rest }: ChatMessage) => rest;

function roundTrip(file: ChatFile): ChatFile {
  const text = exportChat({ messages: chatToExport(file), metadata: file.metadata, userName: 'U', characterName: 'C', now: NOW });
  return readChatFile({ name: file.name, text });
}

describe('import/chat/export', () => {
  after(removeTempDirs);

  it("writes SillyTavern's current header: chat_metadata with a fresh integrity, 'unused' names", () => {
    const meta = { integrity: 'old', variables: { a: '1' } };
    const text = exportChat({ messages: [], metadata: meta, userName: 'U', characterName: 'C', now: NOW });
    const lines = text.split('\n');
    assert.equal(lines.length, 1);
    const header = JSON.parse(lines[0]!) as { chat_metadata: Record<string, unknown>; user_name: string; character_name: string };
    assert.deepEqual(Object.keys(header), ['chat_metadata', 'user_name', 'character_name']);
    assert.equal(header.user_name, 'unused');
    assert.equal(header.character_name, 'unused');
    assert.match(String(header.chat_metadata.integrity), UUID);
    assert.deepEqual(header.chat_metadata.variables, { a: '1' });
    assert.equal(meta.integrity, 'old', 'the metadata passed in is not changed');
    const again = JSON.parse(exportChat({ messages: [], metadata: meta, userName: 'U', characterName: 'C', now: NOW }));
    assert.notEqual(again.chat_metadata.integrity, header.chat_metadata.integrity, 'every export is a new chat');
    assert.equal(readChatFile({ name: 'x', text }).shape, 'unused-names');
  });

  it('writes a message as SillyTavern does: reply with swipe arrays, user without; dates: imported as they were, else ISO', () => {
    const messages: ExportMessage[] = [
      { isUser: true, name: '', hidden: false, swipes: [{ text: 'hi' }], chosen: 0 },
      { isUser: false, name: 'Aster', hidden: true, swipes: [{ text: 'one' }, { text: 'two', imported: { from: 'sillytavern', name: 'Aster', reasoning: 'because', extra: { api: 'x' }, info: { gen_started: 'g' } } }], chosen: 1 },
    ];
    const [, u, a] = exportChat({ messages, metadata: {}, userName: 'Mara', characterName: 'Aster', now: NOW }).split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(u, { name: 'Mara', is_user: true, is_system: false, send_date: '2026-12-02T08:00:00.000Z', mes: 'hi', extra: {} });
    assert.deepEqual(a, {
      name: 'Aster', is_user: false, is_system: true, mes: 'two',
      extra: { api: 'x', reasoning: 'because' }, gen_started: 'g',
      swipes: ['one', 'two'], swipe_id: 1,
      swipe_info: [
        { send_date: '2026-12-02T08:00:00.000Z', extra: {} },
        { gen_started: 'g', extra: { api: 'x', reasoning: 'because' } },
      ],
    }, 'an imported swipe without a date gets none');
    const [, n] = exportChat({ messages: [{ isUser: true, name: 'M', hidden: false, swipes: [{ text: 'x', sendDate: '2025-01-01T00:00:00.000Z' }], chosen: 0 }], metadata: {}, userName: 'U', characterName: 'C', now: NOW })
      .split('\n').map((l) => JSON.parse(l));
    assert.equal(n.send_date, '2025-01-01T00:00:00.000Z', "a Worldline entry's own time");
  });

  it('kept fields go back, but never over the fields the exporter writes', () => {
    const messages: ExportMessage[] = [{
      isUser: false, name: 'A', hidden: false, chosen: 0,
      swipes: [{ text: 'real', imported: { from: 'sillytavern', name: 'A', fields: { title: 't', mes: 'forged', is_system: true, swipes: [] } } }],
    }];
    const [, m] = exportChat({ messages, metadata: {}, userName: 'U', characterName: 'C', now: NOW }).split('\n').map((l) => JSON.parse(l));
    assert.equal(m.mes, 'real');
    assert.equal(m.is_system, false);
    assert.deepEqual(m.swipes, ['real']);
    assert.equal(m.title, 't');
  });

  for (const file of allFixtures) {
    it(`export → read gives the same messages: ${file}`, () => {
      const before = readFixture(file);
      const after = roundTrip(before);
      assert.deepEqual(after.skipped, []);
      assert.equal(after.systemNotices, 0, 'notices were left out on import and are not written back');
      const expected = before.messages.map(content);
      if (file === 'notices.jsonl') {
        // In the source the help notice was SillyTavern's message 0, so the greeting kept its macro;
        // exported without the notice the greeting is message 0, and SillyTavern resolves it there.
        expected[0]!.swipes[0]!.text = 'Hello Mara.';
      }
      assert.deepEqual(after.messages.map(content), expected);
      assert.deepEqual({ ...after.metadata, integrity: undefined }, { ...before.metadata, integrity: undefined });
    });
  }

  it('export → read keeps random messages: swipes, chosen, hidden, names, reasoning, extra, fields', () => {
    const json = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== '__proto__'), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 3, noNullPrototype: true });
    const swipe = fc.record({
      text: fc.string(),
      sendDate: fc.option(fc.oneof(fc.string(), fc.nat()), { nil: undefined }),
      reasoning: fc.option(fc.string(), { nil: undefined }),
      extra: fc.option(json.filter((o) => Object.keys(o).length > 0 && !('reasoning' in o)), { nil: undefined }),
      info: fc.option(json.filter((o) => Object.keys(o).length > 0 && !('send_date' in o) && !('extra' in o)), { nil: undefined }),
    });
    const message = fc.record({
      isUser: fc.boolean(), name: fc.string({ minLength: 1 }), hidden: fc.boolean(), swipes: fc.array(swipe, { minLength: 1, maxLength: 4 }),
      chosen: fc.nat(3),
      fields: fc.option(json.filter((o) => Object.keys(o).length > 0 && !['name', 'is_user', 'is_system', 'send_date', 'mes', 'extra', 'swipes', 'swipe_id', 'swipe_info', 'gen_started', 'gen_finished', 'is_group', 'user_name', 'character_name', 'chat_metadata', 'create_date'].some((k) => k in o)), { nil: undefined }),
    }).map((m) => ({ ...m, chosen: m.chosen % m.swipes.length }));
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), (raw) => {
        // Macros would be resolved in message 0 on reading: keep them out of this property.
        const msgs = raw.map((m, i) => ({
          ...m, line: i + 2,
          swipes: m.swipes.map((s) => clean({ ...s, text: s.text.replace(/[{<]/g, '(') })),
        })) as ChatMessage[];
        for (const m of msgs) if (!m.fields) delete m.fields;
        const after = readChatFile({ name: 'p', text: exportChat({ messages: chatToExport({ messages: msgs }), metadata: {}, userName: 'U', characterName: 'C', now: NOW }) });
        assert.deepEqual(after.messages.map(content), msgs.map((m) => withIso(content(m))));
      }),
      { numRuns: runs(200, 5000) },
    );
  });

  it('metadataFromState: variables, the author\'s note back to note_prompt', () => {
    assert.deepEqual(metadataFromState({ variables: { gold: '12', [AUTHORS_NOTE_VARIABLE]: 'Slow.' } }), { variables: { gold: '12' }, note_prompt: 'Slow.' });
    assert.deepEqual(metadataFromState({ time: 'noon' }), { variables: {} });
    assert.deepEqual(metadataFromState(undefined), { variables: {} });
    assert.deepEqual(metadataFromState({ variables: [1, 2] }), { variables: {} });
  });

  describe('branchToExport', () => {
    it('a Session is a BranchReader', () => {
      const check = (s: Session): BranchReader => s;
      assert.equal(typeof check, 'function');
    });

    it('native turns: one message per reply, texts joined, tools left out; variants as swipes; edits and hides', async () => {
      const dir = tempDir('wl-export-');
      const s = await Session.create(path.join(dir, 's.jsonl'), { id: 's', title: 'Book' });
      const u1 = await s.append({ type: 'user', text: 'Write the inn.' });
      const a1 = await s.append({ type: 'assistant', text: 'Let me look.', toolCalls: [{ id: 't1', name: 'read', arguments: '{}' }], model: 'm', finish: 'stop' });
      await s.append({ type: 'tool', callId: 't1', name: 'read', result: 'chapter text', isError: false });
      await s.append({ type: 'assistant', text: '', toolCalls: [{ id: 't2', name: 'write', arguments: '{}' }], model: 'm', finish: 'stop' });
      await s.append({ type: 'tool', callId: 't2', name: 'write', result: 'ok', isError: false });
      await s.append({ type: 'assistant', text: 'Done: the inn is written.', model: 'm', finish: 'stop' });
      await s.append({ type: 'checkpoint', commit: 'c1', ref: 'r', changed: [] });
      await s.append({ type: 'state', state: { variables: { mood: 'calm' } }, by: 'scribe', warnings: [] });
      await s.append({ type: 'user', text: 'Now the rain.' });
      const first = await s.append({ type: 'assistant', text: 'Rain falls.', model: 'm', finish: 'stop' });
      // Regenerate: a sibling reply under the same user entry.
      await s.navigate(first.parentId);
      const second = await s.append({ type: 'assistant', text: 'Rain, again.', model: 'm', finish: 'stop' });
      await s.appendSide({ type: 'edit', targetId: u1.id, text: 'Write the inn at dusk.' });
      await s.appendSide({ type: 'hide', targetId: a1.id, hidden: true });

      const out = branchToExport(s, { userName: 'Novelist', characterName: 'Narrator' });
      for (const m of out) for (const x of m.swipes) assert.match(String(x.sendDate), /^\d{4}-\d\d-\d\dT/, "a native entry's ts");
      assert.deepEqual(out.map((m) => ({ ...m, swipes: m.swipes.map(({ sendDate: _d, ...rest }) => rest) })), [
        { isUser: true, name: 'Novelist', hidden: false, swipes: [{ text: 'Write the inn at dusk.' }], chosen: 0 },
        { isUser: false, name: 'Narrator', hidden: true, swipes: [{ text: 'Let me look.\n\nDone: the inn is written.' }], chosen: 0 },
        { isUser: true, name: 'Novelist', hidden: false, swipes: [{ text: 'Now the rain.' }], chosen: 0 },
        { isUser: false, name: 'Narrator', hidden: false, swipes: [{ text: 'Rain falls.' }, { text: 'Rain, again.' }], chosen: 1 },
      ]);
      // The other variant's branch: the chosen swipe follows the leaf.
      const other = branchToExport(s, { leafId: first.id });
      assert.equal(other[3]!.chosen, 0);
      assert.equal(other[3]!.name, '', 'no names given: exportChat fills its own');
      assert.equal(second.type, 'assistant');
      const text = exportChat({ messages: out, metadata: metadataFromState(s.lastOnPath('state')?.state), userName: 'Novelist', characterName: 'Narrator', now: NOW });
      const back = readChatFile({ name: 'b', text });
      assert.deepEqual(back.metadata.variables, { mood: 'calm' });
      assert.deepEqual(back.messages.map((m) => [m.name, m.swipes.map((x) => x.text), m.chosen, m.hidden]), [
        ['Novelist', ['Write the inn at dusk.'], 0, false],
        ['Narrator', ['Let me look.\n\nDone: the inn is written.'], 0, true],
        ['Novelist', ['Now the rain.'], 0, false],
        ['Narrator', ['Rain falls.', 'Rain, again.'], 1, false],
      ]);
      await s.close();
    });
  });

  describe('round trip: import → session → export → import', () => {
    /** Imports chat files into a real session file and opens it. */
    async function importToSession(files: ChatFile[], id: string): Promise<Session> {
      const result = importChats(files, { newId: id, now: NOW, authorsNote: 'state' });
      assert.ok(result.ok, result.ok ? '' : result.error.message);
      const file = path.join(tempDir('wl-roundtrip-'), `${id}.jsonl`);
      fs.writeFileSync(file, [...result.lines].join('\n') + '\n');
      const { session, report } = await Session.open(file);
      assert.deepEqual(report.warnings, []);
      return session;
    }
    function exportBranch(s: Session, leafId: string | null): string {
      return exportChat({
        messages: branchToExport(s, { leafId }),
        metadata: metadataFromState(s.lastOnPath('state', leafId)?.state),
        userName: 'You', characterName: 'Them', now: NOW,
      });
    }
    const leavesOf = (s: Session) => s.entries().filter((e) => e.type === 'label' && e.targetId !== s.header.id).map((e) => (e as { targetId: string }).targetId);

    const sets: Record<string, string[]> = {
      'the real sample': ['Seraphina - 2023-5-12 @21h 32m 29s 224ms.jsonl'],
      'a branch set (branch of a branch, checkpoint, branch from a non-chosen swipe)': fixtureFiles(path.join(chats, 'Aster')),
      'swipes and odd fields': ['swipes.jsonl'],
      'an old headerless group chat': ['2024-7-12@01h31m37s.jsonl'],
    };
    for (const [what, files] of Object.entries(sets)) {
      it(`gives the same branch, every branch of ${what}`, async () => {
        const s1 = await importToSession(files.map(readFixture), 'first');
        const leaves = [s1.leafId, ...leavesOf(s1)];
        assert.ok(leaves.length >= files.length);
        for (const leaf of leaves) {
          const exported = exportBranch(s1, leaf);
          const s2 = await importToSession([readChatFile({ name: 'exported', text: exported })], 'second');
          assert.deepEqual(branchToExport(s2, {}), branchToExport(s1, { leafId: leaf }), `branch at ${leaf}`);
          assert.deepEqual(
            metadataFromState(s2.lastOnPath('state')?.state),
            metadataFromState(s1.lastOnPath('state', leaf)?.state),
            'variables and the author\'s note',
          );
          // And once more through SillyTavern's format: the text is stable apart from the integrity.
          const again = exportBranch(s2, s2.leafId);
          assert.equal(again.split('\n').slice(1).join('\n'), exported.split('\n').slice(1).join('\n'));
          await s2.close();
        }
        await s1.close();
      });
    }
  });
});

type Swipe = ChatMessage['swipes'][number];

function clean(s: Swipe): Swipe {
  const out: Swipe = { text: s.text };
  if (s.sendDate !== undefined) out.sendDate = s.sendDate;
  if (s.reasoning !== undefined) out.reasoning = s.reasoning;
  if (s.extra !== undefined) out.extra = s.extra;
  if (s.info !== undefined) out.info = s.info;
  return out;
}

/** A date the reader knows gets its ISO form too. */
function withIso(m: Omit<ChatMessage, 'line'>): Omit<ChatMessage, 'line'> {
  return {
    ...m,
    swipes: m.swipes.map((s) => {
      const out: Swipe = { text: s.text };
      if (s.sendDate !== undefined) out.sendDate = s.sendDate;
      const iso = sendDateIso(s.sendDate);
      if (iso !== undefined) out.sendIso = iso;
      if (s.reasoning !== undefined) out.reasoning = s.reasoning;
      if (s.extra !== undefined) out.extra = s.extra;
      if (s.info !== undefined) out.info = s.info;
      return out;
    }),
  };
}
