// Reading SillyTavern chat files: the real sample, every header shape, the date formats, group
// chats old and new, hidden messages against SillyTavern's own notices, swipes with missing or
// surplus swipe_info, reasoning, macros, damaged lines with their line numbers, and random garbage
// that never throws and never costs a valid message line.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { isGroupJsonError, readChatFile, readGroupJson, type GroupInfo } from '../../../../src/import/chat/read';
import type { ChatFile, ChatMessage } from '../../../../src/import/chat/types';
import { runs } from '../../long-mode';

const chats = path.resolve(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'sillytavern', 'chats');
const SAMPLE = 'Seraphina - 2023-5-12 @21h 32m 29s 224ms';

function read(file: string, group?: GroupInfo): ChatFile {
  const text = fs.readFileSync(path.join(chats, file), 'utf8');
  return readChatFile({ name: path.basename(file, '.jsonl'), text, ...(group ? { group } : {}) });
}
const shown = (m: ChatMessage) => m.swipes[m.chosen]!.text;

function group(): GroupInfo {
  const g = readGroupJson(fs.readFileSync(path.join(chats, 'group.json'), 'utf8'));
  assert.ok(!isGroupJsonError(g), JSON.stringify(g));
  return g;
}

describe('import/chat/read', () => {
  describe('the real sample chat', () => {
    const file = read(`${SAMPLE}.jsonl`);
    const lines = fs.readFileSync(path.join(chats, `${SAMPLE}.jsonl`), 'utf8').split('\n');

    it('reads all 42 messages with the header names and nothing skipped', () => {
      assert.equal(lines.length, 43, 'header + 42 message lines');
      assert.equal(file.messages.length, 42);
      assert.deepEqual(file.skipped, []);
      assert.equal(file.systemNotices, 0);
      assert.equal(file.shape, 'named');
      assert.equal(file.userName, 'le');
      assert.equal(file.characterName, 'Seraphina');
      assert.equal(file.createDate, '2025-04-29@14h37m57s');
      assert.equal(file.isGroup, false);
      assert.equal(file.metadata.integrity, '676fd8bf-d96e-408e-9879-ebac6323444f');
      assert.deepEqual(new Set(file.messages.map((m) => m.name)), new Set(['le', 'Seraphina']));
      assert.deepEqual(file.messages.map((m) => m.line), Array.from({ length: 42 }, (_, i) => i + 2));
      assert.equal(file.messages.filter((m) => m.isUser).length, 18);
    });

    it('keeps the shown text, the swipes and the chosen swipe of each message', () => {
      for (const m of file.messages) {
        const raw = JSON.parse(lines[m.line - 1]!) as { mes: string; swipes?: string[]; swipe_id?: number };
        assert.equal(shown(m), raw.mes, `line ${m.line}`);
        assert.equal(m.swipes.length, raw.swipes?.length ?? 1, `line ${m.line}`);
        assert.equal(m.chosen, raw.swipe_id ?? 0);
        assert.equal(m.hidden, false);
      }
      const four = file.messages.find((m) => m.line === 34)!;
      assert.equal(four.swipes.length, 4);
      assert.equal(four.chosen, 3);
      assert.deepEqual(four.swipes.map((s) => s.text.length > 0), [false, false, false, true], 'three empty (failed) swipes, then the shown one');
    });

    it('keeps reasoning out of the text, as metadata of its swipe', () => {
      const replies = file.messages.filter((m) => !m.isUser);
      // This chat's model put its thinking inline (<thinking> in mes); extra.reasoning is '' on all but the greeting.
      assert.deepEqual(replies.map((m) => m.swipes[m.chosen]!.reasoning), [undefined, ...replies.slice(1).map(() => '')]);
      for (const m of file.messages) {
        for (const s of m.swipes) {
          assert.equal(s.extra?.reasoning, undefined, 'reasoning is not left in extra');
          if (s.reasoning) assert.ok(!s.text.includes(s.reasoning), `line ${m.line}: reasoning inside the text`);
        }
      }
      const first = replies[1]!; // line 4: the first generated reply
      assert.equal(first.swipes[0]!.sendDate, 'April 29, 2025 2:38pm');
      assert.equal(first.swipes[0]!.sendIso, '2025-04-29T14:38:00');
      assert.equal(first.swipes[0]!.extra?.model !== undefined, true);
      assert.ok(first.swipes[0]!.info?.gen_started !== undefined, 'gen_started kept in the swipe info');
      assert.ok(first.fields && 'title' in first.fields, 'title kept in fields');
      const withTable = file.messages.find((m) => m.line === 14)!;
      assert.ok(withTable.fields && 'tableEditMatches' in withTable.fields && 'dataTable' in withTable.fields, 'extension fields kept');
    });
  });

  describe('header shapes', () => {
    it('named (2023–2024): names, create_date, metadata', () => {
      const f = read('header-named.jsonl');
      assert.equal(f.shape, 'named');
      assert.equal(f.userName, 'Mara');
      assert.equal(f.characterName, 'Aster');
      assert.equal(f.createDate, '2023-06-19@14h20m00s');
      assert.deepEqual(f.metadata.variables, { mood: 'calm' });
      assert.equal(f.mainChat, undefined);
      assert.equal(f.messages.length, 3);
      assert.equal(f.isGroup, false);
    });

    it('named without chat_metadata (before metadata existed): metadata {}', () => {
      const f = read('header-named-without-metadata.jsonl');
      assert.equal(f.shape, 'named-without-metadata');
      assert.deepEqual(f.metadata, {});
      assert.equal(f.userName, 'You');
      assert.equal(f.characterName, 'Old Bot');
      assert.equal(f.createDate, 'June 19, 2023 2:20pm');
      const [a, b] = f.messages;
      assert.equal(a!.hidden, false, 'missing is_system is false');
      assert.deepEqual(a!.swipes, [{ text: 'A chat from before chat_metadata existed.', sendDate: 1687184400000, sendIso: '2023-06-19T14:20:00.000Z' }]);
      assert.equal(b!.isUser, true);
      assert.equal(b!.chosen, 0);
    });

    it("'unused' names (2025 on): names undefined, macros from the messages' names", () => {
      const f = read('header-unused-names.jsonl');
      assert.equal(f.shape, 'unused-names');
      assert.equal(f.userName, undefined);
      assert.equal(f.characterName, undefined);
      assert.equal(f.metadata.integrity, '0b5c33c0-8f6f-4d0e-9a51-3f3bb8f1b7a2');
      const m0 = f.messages[0]!;
      assert.deepEqual(m0.swipes.map((s) => s.text), ['Hi Lin, I am Aster.', 'Welcome, Lin. Aster is here.']);
      assert.equal(m0.chosen, 1);
    });

    it('headerless (old group chats): line 1 is a message', () => {
      const f = read('2024-7-12@01h31m37s.jsonl');
      assert.equal(f.shape, 'headerless');
      assert.equal(f.userName, undefined);
      assert.equal(f.isGroup, true);
      assert.deepEqual(f.metadata, {});
    });

    it('a header whose chat_metadata is not an object gives metadata {}', () => {
      const f = readChatFile({ name: 'x', text: '{"user_name":"A","character_name":"B","chat_metadata":"oops"}\n{"name":"B","mes":"hi"}' });
      assert.equal(f.shape, 'named');
      assert.deepEqual(f.metadata, {});
      assert.equal(f.messages.length, 1);
    });
  });

  describe('send_date formats', () => {
    it('reads all of them into sendIso, keeps each as written', () => {
      const f = read('dates.jsonl');
      const got = f.messages.map((m) => [shown(m), m.swipes[0]!.sendDate, m.swipes[0]!.sendIso]);
      assert.deepEqual(got, [
        ['unix number', 1689775200000, '2023-07-19T14:00:00.000Z'],
        ['numeric string', '1689775200000', '2023-07-19T14:00:00.000Z'],
        ['meridiem', 'June 19, 2023 2:20pm', '2023-06-19T14:20:00'],
        ['humanized', '2024-7-12@01h31m37s', '2024-07-12T01:31:37Z'],
        ['humanized with spaces and milliseconds', '2024-6-5 @14h 56m 50s 682ms', '2024-06-05T14:56:50.682Z'],
        ['ISO 8601', '2025-11-23T10:00:00.000Z', '2025-11-23T10:00:00.000Z'],
        ['humanized with milliseconds (2025)', '2025-11-23@10h00m00s123ms', '2025-11-23T10:00:00.123Z'],
        ['unreadable', 'yesterday at noon', undefined],
        ['missing', undefined, undefined],
      ]);
    });
  });

  describe('group chats', () => {
    it('reads the group JSON: members, current chat, past metadata', () => {
      const g = group();
      assert.equal(g.name, 'Tavern Trio');
      assert.deepEqual(g.members, ['Aster.png', 'Brin.png']);
      assert.equal(g.chatId, '2024-7-12@01h31m37s');
      assert.deepEqual(g.chatMetadata?.variables, { round: '1' });
      assert.deepEqual(g.pastMetadata?.['2024-6-5 @14h 56m 50s 682ms'], { variables: { round: '0' } });
    });

    it('old headerless format: metadata of the current chat from chat_metadata, of others from past_metadata', () => {
      const current = read('2024-7-12@01h31m37s.jsonl', group());
      assert.equal(current.isGroup, true);
      assert.deepEqual(current.metadata.variables, { round: '1' });
      assert.equal(current.metadata.note_prompt, 'Both speak briefly.');
      assert.equal(current.systemNotices, 1, 'the "group created" notice is not a story message');
      assert.deepEqual(current.messages.map((m) => m.name), ['Aster', 'Brin', 'Mara', 'Brin']);
      assert.equal(current.messages[0]!.line, 2);
      assert.equal(current.messages[0]!.fields?.original_avatar, 'Aster.png');
      const older = read('2024-6-5 @14h 56m 50s 682ms.jsonl', group());
      assert.deepEqual(older.metadata, { variables: { round: '0' } });
      assert.equal(older.messages.length, 1);
      const unknown = readChatFile({ name: 'not in the group', text: '{"name":"A","mes":"x"}', group: group() });
      assert.deepEqual(unknown.metadata, {});
    });

    it('new format with a header: its own metadata; a group chat when read with its group', () => {
      const f = read('group-new-format.jsonl', group());
      assert.equal(f.shape, 'unused-names');
      assert.equal(f.isGroup, true);
      assert.deepEqual(f.metadata.variables, { round: '2' }, "the header's metadata wins over the group's");
      assert.equal(shown(f.messages[0]!), 'Aster greets Mara.', '{{user}} from the first user message');
      assert.deepEqual(f.messages.map((m) => m.name), ['Aster', 'Brin', 'Mara']);
      // Without the group JSON the file alone cannot tell (a solo chat has the same header).
      assert.equal(read('group-new-format.jsonl').isGroup, false);
    });

    it('a damaged or foreign group JSON is an error a novelist can act on', () => {
      const bad = readGroupJson('{"name": ');
      assert.ok(isGroupJsonError(bad) && /not valid JSON/.test(bad.error));
      const foreign = readGroupJson('{"name":"x"}');
      assert.ok(isGroupJsonError(foreign) && /not a SillyTavern group file/.test(foreign.error));
      const old = readGroupJson('\ufeff{"id":1690000000000,"name":"Old","members":["A.png",3]}');
      assert.ok(!isGroupJsonError(old));
      assert.equal(old.chatId, '1690000000000', 'groups from before multiple chats: chat_id is the id');
      assert.deepEqual(old.members, ['A.png']);
    });
  });

  describe('hidden messages and notices', () => {
    const f = read('notices.jsonl');

    it("counts SillyTavern's own notices and leaves them out", () => {
      assert.equal(f.systemNotices, 3, 'help, a typeless SillyTavern System notice, a checkpoint notice');
      assert.ok(f.messages.every((m) => m.name !== 'SillyTavern System'));
    });

    it('is_system on a story message is hidden; narrator and comment are story messages', () => {
      const by = (text: string) => f.messages.find((m) => shown(m).includes(text))!;
      assert.equal(by('/hide').hidden, true);
      assert.equal(by('/hide').isUser, true);
      const narrator = by('/sys narrator');
      assert.equal(narrator.hidden, false);
      assert.equal(narrator.name, 'Fate');
      assert.equal(narrator.swipes[0]!.extra?.type, 'narrator');
      const comment = by('/comment');
      assert.equal(comment.hidden, true, 'a /comment is kept out of the prompt: hidden');
      assert.equal(comment.name, 'Note');
      assert.equal(f.messages.length, 5);
    });

    it('message 0 of SillyTavern\'s chat is the notice, so the greeting after it keeps its macro', () => {
      assert.equal(shown(f.messages[0]!), 'Hello {{user}}.');
    });

    it('reasoning goes to the swipe, not the text, on the message and in swipe_info', () => {
      const m = f.messages.find((x) => shown(x) === 'Reasoned reply.')!;
      assert.equal(m.swipes[0]!.reasoning, 'Think about the key first.');
      assert.deepEqual(m.swipes[0]!.extra, { api: 'custom', reasoning_duration: 1200 });
    });
  });

  describe('macros', () => {
    it('resolves {{user}}/{{char}} and the legacy <USER>/<BOT> in message 0 only, case-insensitively', () => {
      const f = read('header-named.jsonl');
      assert.equal(shown(f.messages[0]!), 'Hello Mara, I am Aster. Mara meets Aster.');
      assert.equal(shown(f.messages[1]!), 'Hi. Say {{user}} for me.', 'a user message is never resolved');
      assert.equal(shown(f.messages[2]!), 'Literal {{user}} and {{char}} stay: only message 0 is resolved.');
    });

    it('leaves a macro alone when no name is known', () => {
      const f = readChatFile({ name: 'x', text: '{"chat_metadata":{},"user_name":"unused","character_name":"unused"}\n{"name":"Bo","mes":"{{user}} meets {{char}}"}' });
      assert.equal(shown(f.messages[0]!), '{{user}} meets Bo');
    });

    it('a hidden or user message 0 is not resolved', () => {
      const hidden = readChatFile({ name: 'x', text: '{"user_name":"U","character_name":"C","chat_metadata":{}}\n{"name":"C","is_system":true,"mes":"{{user}}"}' });
      assert.equal(shown(hidden.messages[0]!), '{{user}}');
    });
  });

  describe('swipes', () => {
    const f = read('swipes.jsonl');
    const [mesWins, user, surplus, generating, outOfRange, empty, odd, stringId] = f.messages;

    it('the shown text (mes) wins for the chosen swipe, with the message-level date, extra and gen times', () => {
      assert.equal(mesWins!.chosen, 1);
      assert.deepEqual(mesWins!.swipes.map((s) => s.text), ['first', 'Shown text wins over swipes[1].', 'third']);
      assert.deepEqual(mesWins!.swipes[1], {
        text: 'Shown text wins over swipes[1].', sendDate: 'July 12, 2024 1:31am', sendIso: '2024-07-12T01:31:00',
        reasoning: 'r-shown', extra: { api: 'a' }, info: { gen_started: 'g1', gen_finished: 'g2' },
      });
    });

    it('swipe_info shorter than swipes: the swipe has no info of its own', () => {
      assert.deepEqual(mesWins!.swipes[0], { text: 'first', sendDate: 'July 12, 2024 1:30am', sendIso: '2024-07-12T01:30:00', reasoning: 'r0', extra: { api: 'a' }, info: { gen_started: 's0' } });
      assert.deepEqual(mesWins!.swipes[2], { text: 'third' });
    });

    it('missing swipes: one swipe, the shown text', () => {
      assert.equal(user!.swipes.length, 1);
      assert.equal(user!.chosen, 0);
      assert.equal(empty!.swipes.length, 1, 'an empty swipes array counts as missing');
      assert.equal(shown(empty!), 'only mes');
    });

    it('swipe_info longer than swipes: the surplus is not read; other fields are kept', () => {
      assert.equal(surplus!.swipes.length, 2);
      assert.ok(surplus!.swipes.every((s) => s.sendDate !== 'surplus item, never read'));
      assert.deepEqual(surplus!.fields, { title: 'kept title', force_avatar: 'characters/Aster.png', my_extension: { score: 3 } });
    });

    it('a swipe_id past the end: the shown text becomes the chosen swipe (or the swipe that has it)', () => {
      assert.deepEqual(generating!.swipes.map((s) => s.text), ['a', 'b', 'being generated']);
      assert.equal(generating!.chosen, 2);
      assert.deepEqual(outOfRange!.swipes.map((s) => s.text), ['a', 'b']);
      assert.equal(outOfRange!.chosen, 1);
      assert.deepEqual(stringId!.swipes.map((s) => s.text), ['p', 'q', ''], 'a swipe_id that is not a number; missing mes is empty');
      assert.equal(stringId!.chosen, 2);
    });

    it('odd swipes and swipe_info items do not break the message', () => {
      assert.deepEqual(odd!.swipes.map((s) => s.text), ['x', '', '17']);
      assert.deepEqual(odd!.swipes[2], { text: '17', sendDate: 'July 12, 2024 1:37am', sendIso: '2024-07-12T01:37:00' });
    });
  });

  describe('damaged files', () => {
    it('reports each bad line by number and imports the rest (BOM, CRLF, blank lines)', () => {
      const f = read('damaged.jsonl');
      assert.equal(f.shape, 'named', 'the BOM does not hide the header');
      assert.equal(f.characterName, 'Wreck');
      assert.deepEqual(f.messages.map((m) => [m.line, shown(m)]), [
        [2, 'line 2 is fine'],
        [4, 'line 4 is fine, line 3 was blank'],
        [10, 'line 10 is fine'],
      ]);
      assert.deepEqual(f.skipped.map((s) => s.line), [5, 6, 7, 8, 9, 12]);
      const reason = (line: number) => f.skipped.find((s) => s.line === line)!.reason;
      assert.match(reason(5), /not valid JSON/);
      assert.match(reason(6), /not a chat message/);
      assert.match(reason(7), /not a chat message/);
      assert.match(reason(8), /none of the fields/);
      assert.match(reason(9), /header in the middle/);
      assert.match(reason(12), /last line is cut off/);
    });

    it('CRLF line ends and a BOM read like plain ones', () => {
      const lf = '{"user_name":"U","character_name":"C","chat_metadata":{}}\n{"name":"C","mes":"a"}\n\n{"name":"U","is_user":true,"mes":"b"}';
      const crlf = readChatFile({ name: 'x', text: `\ufeff${lf.replace(/\n/g, '\r\n')}` });
      assert.deepEqual(crlf, readChatFile({ name: 'x', text: lf }));
      assert.equal(crlf.messages.length, 2);
    });

    it('an empty file, or one of blank lines, is an empty chat', () => {
      for (const text of ['', '\n\n', '\ufeff', '  \r\n']) {
        const f = readChatFile({ name: 'e', text });
        assert.equal(f.messages.length, 0);
        assert.deepEqual(f.skipped, []);
      }
    });

    it('a broken first line does not lose the messages after it', () => {
      const f = readChatFile({ name: 'x', text: '{"user_name":\n{"name":"A","mes":"one"}\n{"name":"A","mes":"two"}' });
      assert.deepEqual(f.skipped.map((s) => s.line), [1]);
      assert.equal(f.messages.length, 2);
      assert.equal(f.shape, 'headerless');
    });

    it('random garbage lines never throw and never cost a valid message line', () => {
      const valid = fc.record({ name: fc.string(), mes: fc.string(), is_user: fc.boolean() }).map((o) => ({ kind: 'msg' as const, line: JSON.stringify(o), o }));
      const garbage = fc.oneof(fc.string(), fc.json(), fc.constant('{"mes": "torn'), fc.constant('\ufeff'), fc.constant('\r'))
        .filter((s) => !s.includes('\n'))
        .map((line) => ({ kind: 'junk' as const, line }));
      fc.assert(
        fc.property(fc.array(fc.oneof(valid, garbage), { maxLength: 30 }), (items) => {
          const text = ['{"chat_metadata":{},"user_name":"unused","character_name":"unused"}', ...items.map((i) => i.line)].join('\n');
          const f = readChatFile({ name: 'fuzz', text });
          const byLine = new Map(f.messages.map((m) => [m.line, m]));
          const skippedLines = new Set(f.skipped.map((s) => s.line));
          items.forEach((item, i) => {
            const line = i + 2;
            assert.ok(!(byLine.has(line) && skippedLines.has(line)), 'a line is imported or skipped, not both');
            if (item.kind !== 'msg') return;
            const m = byLine.get(line);
            assert.ok(m, `valid message line ${line} was lost`);
            assert.equal(m.isUser, item.o.is_user);
          });
          for (const s of f.skipped) assert.ok(s.line >= 2 && s.line <= items.length + 1 && s.reason.length > 20);
        }),
        { numRuns: runs(300, 10000) },
      );
    });
  });
});
