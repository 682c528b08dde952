// The join of a chat and its branch and checkpoint files into one tree (issue 16, "Branches").
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { joinChats, mainIndex, type JoinNode, type JoinedChats } from '../../../../src/import/chat/join';
import type { ChatFile, ChatMessage } from '../../../../src/import/chat/types';
import { runs } from '../../long-mode';
import { CHAR, USER, chat, shownTexts, type Msg } from './chatFiles';

type Joined = Extract<JoinedChats, { ok: true }>;

function join(files: ChatFile[], main?: string): Joined {
  const joined = joinChats(files, { main });
  assert.ok(joined.ok);
  return joined;
}

function pathOf(end: JoinNode | null): JoinNode[] {
  const path: JoinNode[] = [];
  for (let n = end; n; n = n.parent) path.push(n);
  return path.reverse();
}

function texts(nodes: readonly JoinNode[]): string[] {
  return nodes.map((n) => n.text);
}

function endOf(joined: Joined, name: string): JoinNode | null {
  const f = joined.files.find((x) => x.file.name === name);
  assert.ok(f, name);
  return f.end;
}

const MAIN: Msg[] = [
  { c: ['Greeting A', 'Greeting B'] },
  { u: 'I wake.' },
  { c: ['She smiles.', 'She frowns.', 'She leaves.'], pick: 0 },
  { u: 'I ask her name.' },
  { c: 'Seraphina.' },
];

describe('chat import: the join', () => {
  it('turns one chat into one path, every swipe a sibling in swipe order, the chosen one carrying the path', () => {
    const joined = join([chat('main', MAIN)]);
    const path = pathOf(endOf(joined, 'main'));
    assert.deepEqual(texts(path), ['Greeting A', 'I wake.', 'She smiles.', 'I ask her name.', 'Seraphina.']);
    assert.deepEqual(texts(joined.roots), ['Greeting A', 'Greeting B']);
    assert.deepEqual(texts(path[1]!.children), ['She smiles.', 'She frowns.', 'She leaves.']);
    assert.deepEqual(texts(path[2]!.children), ['I ask her name.'], 'the path goes on under the chosen swipe');
    assert.equal(joined.nodes.filter((n) => n.text === 'She frowns.')[0]!.children.length, 0);
    assert.deepEqual(joined.counts, { messages: 5, variants: 3, files: 1, branches: 0, hidden: 0, skippedLines: 0, systemNotices: 0 });
  });

  it('continues on the chosen swipe when it is not the first', () => {
    const joined = join([chat('main', [{ c: 'Hi' }, { u: 'Hello' }, { c: ['one', 'two', 'three'], pick: 2 }, { u: 'next' }])]);
    const path = pathOf(endOf(joined, 'main'));
    assert.deepEqual(texts(path), ['Hi', 'Hello', 'three', 'next']);
    assert.deepEqual(texts(path[1]!.children), ['one', 'two', 'three']);
  });

  it('shares the common prefix of a branch and forks where the branch goes on differently', () => {
    const branch = chat('main - Branch #1', [...MAIN.slice(0, 3), { u: 'I run away.' }, { c: 'She follows.' }], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), branch]);
    const main = pathOf(endOf(joined, 'main'));
    const b = pathOf(endOf(joined, 'main - Branch #1'));
    assert.deepEqual(texts(b), ['Greeting A', 'I wake.', 'She smiles.', 'I run away.', 'She follows.']);
    for (let i = 0; i < 3; i++) assert.equal(b[i], main[i], `message ${i + 1} is shared`);
    assert.deepEqual(texts(main[2]!.children), ['I ask her name.', 'I run away.']);
    assert.equal(joined.nodes.length, 10, 'the 8 nodes of the main chat and the 2 new messages: the shared part is not copied');
    assert.equal(joined.counts.branches, 1);
    assert.equal(joined.counts.messages, 6);
    assert.equal(joined.counts.files, 2);
  });

  it('lands a branch made from a non-chosen swipe on that swipe\'s sibling', () => {
    // SillyTavern 2026: "branch from this swipe": the branch's copy shows swipe 1 of message 3.
    const fromSwipe = chat('main - Branch #2', [...MAIN.slice(0, 2), { c: ['She smiles.', 'She frowns.', 'She leaves.'], pick: 1 }, { u: 'Why so grim?' }], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), fromSwipe]);
    const b = pathOf(endOf(joined, 'main - Branch #2'));
    assert.deepEqual(texts(b), ['Greeting A', 'I wake.', 'She frowns.', 'Why so grim?']);
    const frown = b[2]!;
    const siblings = frown.parent!.children;
    assert.deepEqual(texts(siblings), ['She smiles.', 'She frowns.', 'She leaves.'], 'no new sibling: the existing swipe node is used');
    assert.equal(siblings.indexOf(frown), 1);
    assert.deepEqual(texts(frown.children), ['Why so grim?']);
    assert.equal(joined.counts.branches, 1);
  });

  it('joins a branch of a branch under the branch, whatever the files\' order', () => {
    const b1 = chat('B1', [...MAIN.slice(0, 3), { u: 'I run away.' }, { c: 'She follows.' }, { u: 'I hide.' }], { mainChat: 'main' });
    const b2 = chat('B2', [...MAIN.slice(0, 3), { u: 'I run away.' }, { c: 'She follows.' }, { u: 'I turn around.' }], { mainChat: 'B1' });
    for (const files of [[chat('main', MAIN), b1, b2], [b2, b1, chat('main', MAIN)], [b1, chat('main', MAIN), b2]]) {
      const joined = join(files);
      assert.equal(joined.files[joined.main]!.file.name, 'main', 'the root is the main chat');
      const p1 = pathOf(endOf(joined, 'B1'));
      const p2 = pathOf(endOf(joined, 'B2'));
      const pm = pathOf(endOf(joined, 'main'));
      assert.deepEqual(p2.slice(0, 5), p1.slice(0, 5));
      assert.deepEqual(texts(p1[4]!.children), ['I hide.', 'I turn around.'], 'a chat comes before the chats made from it');
      assert.equal(pm[2], p1[2]);
      assert.deepEqual(texts(pm[2]!.children), ['I ask her name.', 'I run away.'], "the main chat's path comes first");
      assert.equal(joined.counts.branches, 2);
    }
  });

  it('puts a checkpoint\'s end on the main path, without a fork', () => {
    const checkpoint = chat('Checkpoint #1', MAIN.slice(0, 3), { mainChat: 'main' });
    const joined = join([chat('main', MAIN), checkpoint]);
    const main = pathOf(endOf(joined, 'main'));
    assert.equal(endOf(joined, 'Checkpoint #1'), main[2]);
    assert.equal(joined.nodes.length, 8);
    assert.equal(joined.counts.branches, 0);
    assert.equal(joined.counts.variants, 3);
  });

  it('forks where a branch edited a message of the shared part, and shares nothing below it', () => {
    const edited = chat('edited', [MAIN[0]!, { u: 'I wake up slowly.' }, ...MAIN.slice(2)], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), edited]);
    const m = pathOf(endOf(joined, 'main'));
    const e = pathOf(endOf(joined, 'edited'));
    assert.equal(e[0], m[0]);
    assert.notEqual(e[1], m[1]);
    assert.deepEqual(texts(m[0]!.children), ['I wake.', 'I wake up slowly.']);
    assert.deepEqual(texts(e), ['Greeting A', 'I wake up slowly.', 'She smiles.', 'I ask her name.', 'Seraphina.']);
    assert.ok(e.slice(1).every((n) => !m.includes(n)));
    assert.deepEqual(texts(e[1]!.children), ['She smiles.', 'She frowns.', 'She leaves.'], 'the swipes come along on the new branch');
  });

  it('an edit of a swiped message adds only the new text beside the swipes', () => {
    const edited = chat('edited', [...MAIN.slice(0, 2), { c: ['She smiles warmly.', 'She frowns.', 'She leaves.'], pick: 0 }], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), edited]);
    const e = pathOf(endOf(joined, 'edited'));
    assert.deepEqual(texts(e[2]!.parent!.children), ['She smiles.', 'She frowns.', 'She leaves.', 'She smiles warmly.']);
    assert.equal(e[2]!.text, 'She smiles warmly.');
  });

  it('gives a message hidden in one file and shown in another its own sibling, hidden', () => {
    const hid = chat('hid', [MAIN[0]!, { u: 'I wake.', hidden: true }, { c: 'She smiles.' }], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), hid]);
    const m = pathOf(endOf(joined, 'main'));
    const h = pathOf(endOf(joined, 'hid'));
    assert.notEqual(h[1], m[1]);
    assert.equal(h[1]!.text, m[1]!.text);
    assert.equal(h[1]!.hidden, true);
    assert.equal(m[1]!.hidden, false);
    assert.deepEqual(texts(h[1]!.children), ['She smiles.']);
    assert.equal(joined.counts.hidden, 1);
  });

  it('does not copy the other swipes of a message that only became hidden', () => {
    const hid = chat('hid', [...MAIN.slice(0, 2), { c: ['She smiles.', 'She frowns.', 'She leaves.'], pick: 1, hidden: true }], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), hid]);
    const h = pathOf(endOf(joined, 'hid'));
    const siblings = h[2]!.parent!.children;
    assert.deepEqual(siblings.map((n) => [n.text, n.hidden]), [['She smiles.', false], ['She frowns.', false], ['She leaves.', false], ['She frowns.', true]]);
    assert.equal(h[2], siblings[3]);
  });

  it('shares a message whose chosen swipe differs, and goes on under the other swipe', () => {
    const other = chat('other', [...MAIN.slice(0, 2), { c: ['She smiles.', 'She frowns.', 'She leaves.'], pick: 2 }, { u: 'Wait!' }], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), other]);
    const o = pathOf(endOf(joined, 'other'));
    assert.equal(o[2]!.text, 'She leaves.');
    assert.equal(o[2]!.parent!.children.length, 3);
    assert.deepEqual(texts(o[2]!.children), ['Wait!']);
  });

  it('keeps a swipe a later file added to a shared message', () => {
    const more = chat('more', [...MAIN.slice(0, 2), { c: ['She smiles.', 'She frowns.', 'She leaves.', 'She sings.'], pick: 0 }], { mainChat: 'main' });
    const joined = join([chat('main', MAIN), more]);
    const m = pathOf(endOf(joined, 'main'));
    assert.equal(endOf(joined, 'more'), m[2]);
    assert.deepEqual(texts(m[1]!.children), ['She smiles.', 'She frowns.', 'She leaves.', 'She sings.']);
  });

  it('orders messages by line, never by send_date', () => {
    const dated = (text: string, iso: string): Msg => ({ c: text, swipe: { sendIso: iso, sendDate: iso } });
    const joined = join([chat('main', [dated('first', '2025-03-03T00:00:00.000Z'), { u: 'second' }, dated('third', '2020-01-01T00:00:00.000Z')])]);
    assert.deepEqual(texts(pathOf(endOf(joined, 'main'))), ['first', 'second', 'third']);
  });

  it('keeps speakers apart: the same text from another speaker or from the user is another node', () => {
    const joined = join([chat('a', [{ c: 'Hi' }, { u: 'Yes' }]), chat('b', [{ c: 'Hi', name: 'Alice' }, { u: 'Yes' }]), chat('c', [{ u: 'Hi' }])]);
    assert.equal(joined.roots.length, 3);
    assert.deepEqual(joined.roots.map((n) => [n.name, n.isUser]), [[CHAR, false], ['Alice', false], [USER, true]]);
  });

  it('takes the message fields from the file that shows the swipe', () => {
    const joined = join([
      chat('main', [{ c: ['a', 'b'], pick: 0, fields: { title: 'first' } }]),
      chat('b', [{ c: ['a', 'b'], pick: 1, fields: { title: 'second' } }], { mainChat: 'main' }),
    ]);
    assert.deepEqual(joined.roots.map((n) => n.fields), [{ title: 'first' }, { title: 'second' }]);
  });

  it('opens at the chat named, else the root of the links, else the first file', () => {
    const a = chat('a', MAIN, { mainChat: 'b' });
    const b = chat('b', MAIN);
    const c = chat('c', MAIN, { mainChat: 'a' });
    assert.equal(mainIndex([a, b, c]), 1);
    assert.equal(mainIndex([a, b, c], 'c'), 2);
    assert.equal(mainIndex([a, b, c], 'c.jsonl'), 2);
    assert.equal(mainIndex([a, b, c], 'nowhere'), 1);
    assert.equal(mainIndex([a, c]), 0, 'a names a chat not given: a is the root');
    const loop1 = chat('x', MAIN, { mainChat: 'y' });
    const loop2 = chat('y', MAIN, { mainChat: 'x' });
    assert.equal(mainIndex([loop1, loop2]), 0);
    assert.equal(join([a, b, c]).files[join([a, b, c]).main]!.file.name, 'b');
  });

  it('stops at maxNodes instead of building an absurd tree', () => {
    const many = chat('many', [{ c: Array.from({ length: 50 }, (_, i) => `swipe ${i}`) }]);
    const joined = joinChats([many], { maxNodes: 10 });
    assert.deepEqual(joined, { ok: false, tooLarge: true, nodes: 11 });
  });

  it('finds siblings among thousands of swipes without a quadratic scan', () => {
    const swipes = Array.from({ length: 20_000 }, (_, i) => `swipe ${i}`);
    const start = Date.now();
    const joined = join([chat('main', [{ c: swipes }]), chat('b', [{ c: [...swipes].reverse(), pick: 7 }], { mainChat: 'main' })]);
    assert.equal(joined.roots.length, 20_000);
    assert.equal(endOf(joined, 'b')!.text, 'swipe 19992');
    assert.ok(Date.now() - start < 2000);
  });

  it('an empty file ends before the first message', () => {
    const joined = join([chat('main', MAIN), chat('empty', [], { mainChat: 'main' })]);
    assert.equal(endOf(joined, 'empty'), null);
  });

  describe('property: random sets of prefix copies with random edits', () => {
    const TEXTS = ['a', 'b', 'c', '…', '她笑了。'];
    const NAMES = [CHAR, 'Alice'];
    const msgArb = fc.record({
      isUser: fc.boolean(),
      name: fc.constantFrom(...NAMES),
      swipes: fc.array(fc.constantFrom(...TEXTS), { minLength: 1, maxLength: 3 }),
      chosen: fc.nat(2),
      hidden: fc.boolean(),
    });
    const editArb = fc.record({
      from: fc.nat(), // which earlier file it copies
      cut: fc.nat(), // how much of it
      edits: fc.array(fc.record({ at: fc.nat(), kind: fc.constantFrom('text', 'hide', 'choose'), text: fc.constantFrom(...TEXTS), pick: fc.nat(2) }), { maxLength: 3 }),
      more: fc.array(msgArb, { maxLength: 4 }),
    });

    type Gen = { isUser: boolean; name: string; swipes: string[]; chosen: number; hidden: boolean };
    type Copy = { from: number; cut: number; edits: { at: number; kind: string; text: string; pick: number }[]; more: Gen[] };

    function toMessage(m: Gen, line: number): ChatMessage {
      return { line, name: m.isUser ? USER : m.name, isUser: m.isUser, hidden: m.hidden, swipes: m.swipes.map((text) => ({ text })), chosen: m.chosen % m.swipes.length };
    }

    function buildFiles(base: Gen[], copies: Copy[]): ChatFile[] {
      const files: ChatFile[] = [{ ...chat('f0', []), messages: base.map((m, i) => toMessage(m, i + 2)) }];
      for (const c of copies) {
        const src = files[c.from % files.length]!;
        const messages = src.messages.slice(0, src.messages.length === 0 ? 0 : (c.cut % src.messages.length) + 1).map((m) => ({ ...m, swipes: m.swipes.map((s) => ({ ...s })) }));
        for (const e of c.edits) {
          const m = messages[e.at % Math.max(1, messages.length)];
          if (!m) continue;
          if (e.kind === 'text') m.swipes[m.chosen] = { text: e.text };
          else if (e.kind === 'hide') m.hidden = !m.hidden;
          else m.chosen = e.pick % m.swipes.length;
        }
        c.more.forEach((m) => messages.push(toMessage(m, 0)));
        messages.forEach((m, i) => (m.line = i + 2));
        files.push({ ...chat(`f${files.length}`, [], { mainChat: src.name }), messages });
      }
      return files;
    }

    it('every file is exactly one root-to-node path, no two siblings share a key, and no swipe is lost', () => {
      fc.assert(
        fc.property(fc.array(msgArb, { maxLength: 8 }), fc.array(editArb, { maxLength: 6 }), (base, copies) => {
          const files = buildFiles(base, copies);
          const joined = join(files);
          const key = (n: { isUser: boolean; name: string; text: string; hidden: boolean }): string => JSON.stringify([n.isUser, n.name, n.text, n.hidden]);
          for (const { file, end } of joined.files) {
            const path = pathOf(end);
            assert.deepEqual(
              path.map(key),
              file.messages.map((m) => key({ ...m, text: m.swipes[m.chosen]!.text })),
              `${file.name} is its path`,
            );
            assert.deepEqual(texts(path), shownTexts(file));
            // Every swipe of every message sits among the siblings at its place.
            path.forEach((n, i) => {
              const siblings = n.parent ? n.parent.children : joined.roots;
              for (const s of file.messages[i]!.swipes) assert.ok(siblings.some((x) => x.text === s.text && x.isUser === n.isUser && x.name === n.name), `swipe "${s.text}" kept`);
            });
          }
          for (const group of [joined.roots, ...joined.nodes.map((n) => n.children)]) {
            const keys = group.map(key);
            assert.equal(new Set(keys).size, keys.length, 'siblings have different keys');
          }
          assert.equal(joined.counts.messages + joined.counts.variants, joined.nodes.length);
          assert.ok(joined.nodes.every((n) => n.parent === null || n.parent.index < n.index), 'parents come first');
        }),
        { numRuns: runs(300, 5000) },
      );
    });
  });
});
