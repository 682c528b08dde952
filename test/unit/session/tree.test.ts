// Tree operations of a session: append, navigate, path, ancestry, variants, tips, regenerate
// positioning, side entries, context rebuild, change events.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChainEntry, NewChainEntry } from '../../../src/session/entries';
import { SessionError } from '../../../src/session/errors';
import { Session, SessionChange } from '../../../src/session/session';
import { FakeClock, assistant, removeTempDirs, tempDir, tool, user } from './helpers';

async function newSession(clock = new FakeClock()): Promise<Session> {
  const dir = tempDir();
  return Session.create(path.join(dir, 'abc123.jsonl'), { id: 'abc123', title: '雨夜' }, { clock });
}

async function reopen(session: Session): Promise<Session> {
  await session.close();
  return (await Session.open(session.file)).session;
}

function ids(entries: readonly ChainEntry[]): string[] {
  return entries.map((e) => e.id);
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof SessionError && e.code === code);
}

describe('session tree', () => {
  afterEach(removeTempDirs);

  describe('append', () => {
    it('chains each entry under the leaf and makes it the leaf', async () => {
      const clock = new FakeClock();
      const s = await newSession(clock);
      assert.equal(s.leafId, null);
      const u = await s.append(user('写第一章'));
      clock.t += 1000;
      const a = await s.append(assistant('好的。'));
      assert.equal(u.parentId, null);
      assert.equal(a.parentId, u.id);
      assert.equal(s.leafId, a.id);
      assert.match(u.id, /^[0-9a-f]{8}$/);
      assert.equal(a.ts, new Date(clock.t).toISOString());
      assert.deepEqual(ids(s.path()), [u.id, a.id]);
      assert.deepEqual(ids(s.children(null)), [u.id]);
      assert.deepEqual(ids(s.children(u.id)), [a.id]);
      await s.close();
    });

    it('writes one complete line per entry, header first, fields in design order', async () => {
      const s = await newSession();
      await s.append(user('一'));
      await s.append(assistant('二'));
      await s.close();
      const text = fs.readFileSync(s.file, 'utf8');
      assert.ok(text.endsWith('\n'));
      const lines = text.split('\n').slice(0, -1).map((l) => JSON.parse(l));
      assert.equal(lines.length, 3);
      assert.deepEqual(Object.keys(lines[0]), ['type', 'version', 'id', 'createdAt', 'title']);
      assert.deepEqual(Object.keys(lines[1]).slice(0, 4), ['id', 'parentId', 'type', 'ts']);
    });

    it('serializes concurrent appends: each sees the previous one as its parent', async () => {
      const s = await newSession();
      const [a, b, c] = await Promise.all([s.append(user('a')), s.append(assistant('b')), s.append(user('c'))]);
      assert.equal(b.parentId, a.id);
      assert.equal(c.parentId, b.id);
      const r = await reopen(s);
      assert.deepEqual(ids(r.path()), [a.id, b.id, c.id]);
      await r.close();
    });

    it('keeps every field as written and reads the same back', async () => {
      const s = await newSession();
      const entries: NewChainEntry[] = [
        user('写'),
        assistant('', { toolCalls: [{ id: 'c1', name: 'append_file', arguments: '{"path":"01.md"}' }], usage: { promptTokens: 10, completionTokens: 5 } }),
        tool('c1', 'ok'),
        { type: 'checkpoint', commit: 'abc', ref: 'refs/worldline/t1', changed: ['chapters/01.md'] },
        { type: 'state', state: { time: '傍晚', location: '茶馆' }, by: 'scribe', warnings: [] },
        { type: 'summary', text: '前情', coversThroughId: 'x' },
        { type: 'save', saveId: 's1', name: '存档', worldlineId: 'w1', worldlineName: '主线', kind: 'first' },
      ];
      const written = [];
      for (const e of entries) written.push(await s.append(e));
      const r = await reopen(s);
      assert.deepEqual(r.path(), written);
      await r.close();
    });

    it('rejects malformed entries without writing anything', async () => {
      const s = await newSession();
      const before = fs.statSync(s.file).size;
      await rejectsWith(s.append({ type: 'user' } as unknown as NewChainEntry), 'invalid-entry');
      await rejectsWith(s.append({ type: 'edit', targetId: 'x', text: '' } as unknown as NewChainEntry), 'invalid-entry');
      await rejectsWith(s.append({ type: 'state', state: { n: 1n }, by: 'user', warnings: [] }), 'invalid-entry');
      await rejectsWith(s.append(assistant('x', { finish: 'done' as 'stop' })), 'invalid-entry');
      assert.equal(fs.statSync(s.file).size, before);
      assert.equal(s.leafId, null);
      await s.close();
    });

    it('finishes writes queued before close, and refuses writes after it', async () => {
      const s = await newSession();
      const pending = s.append(user('最后一句'));
      await s.close();
      const written = await pending;
      const r = (await Session.open(s.file)).session;
      assert.equal(r.leafId, written.id);
      await r.close();
      await rejectsWith(s.append(user('x')), 'closed');
      await rejectsWith(s.navigate(null), 'closed');
    });
  });

  describe('navigate', () => {
    it('moves the leaf without changing the tree and is remembered on reopen', async () => {
      const s = await newSession();
      const u = await s.append(user('一'));
      const a = await s.append(assistant('二'));
      await s.navigate(u.id);
      assert.equal(s.leafId, u.id);
      assert.deepEqual(ids(s.path()), [u.id]);
      assert.deepEqual(ids(s.path(a.id)), [u.id, a.id]);
      const r = await reopen(s);
      assert.equal(r.leafId, u.id);
      await r.close();
    });

    it('null goes before the first entry; the next append is a new root', async () => {
      const s = await newSession();
      const u = await s.append(user('一'));
      await s.navigate(null);
      assert.deepEqual(s.path(), []);
      const u2 = await s.append(user('另起'));
      assert.equal(u2.parentId, null);
      assert.deepEqual(ids(s.children(null)), [u.id, u2.id]);
      await s.close();
    });

    it('does not write when already at the target, and refuses unknown ids', async () => {
      const s = await newSession();
      const u = await s.append(user('一'));
      const size = fs.statSync(s.file).size;
      await s.navigate(u.id);
      assert.equal(fs.statSync(s.file).size, size);
      await rejectsWith(s.navigate('nope'), 'unknown-entry');
      const edit = await s.appendSide({ type: 'edit', targetId: u.id, text: 'x' });
      await rejectsWith(s.navigate(edit.id), 'unknown-entry');
      await s.close();
    });
  });

  describe('ancestry', () => {
    it('answers isOnPath and isAncestorOrSelf, including null and unknown ids', async () => {
      const s = await newSession();
      const u = await s.append(user('一'));
      const a = await s.append(assistant('二'));
      await s.navigate(u.id);
      const b = await s.append(assistant('三'));
      assert.ok(s.isOnPath(u.id));
      assert.ok(s.isOnPath(b.id));
      assert.ok(!s.isOnPath(a.id));
      assert.ok(s.isOnPath(a.id, a.id));
      assert.ok(s.isAncestorOrSelf(u.id, a.id));
      assert.ok(s.isAncestorOrSelf(a.id, a.id));
      assert.ok(!s.isAncestorOrSelf(a.id, u.id));
      assert.ok(!s.isAncestorOrSelf(a.id, b.id));
      assert.ok(s.isAncestorOrSelf(null, a.id));
      assert.ok(s.isAncestorOrSelf(null, null));
      assert.ok(!s.isAncestorOrSelf(u.id, null));
      assert.ok(!s.isAncestorOrSelf('gone', a.id));
      await s.close();
    });
  });

  describe('variants, tips and regenerate', () => {
    it('regenerate: the leaf goes to the turn\'s user entry and the new reply is a sibling', async () => {
      const s = await newSession();
      const u = await s.append(user('写开头'));
      const a1 = await s.append(assistant('', { toolCalls: [{ id: 'c1', name: 'append_file', arguments: '{}' }] }));
      const t1 = await s.append(tool('c1', 'ok'));
      const a1b = await s.append(assistant('写好了'));
      const cp = await s.append({ type: 'checkpoint', commit: 'c', ref: 'r', changed: [] });
      for (const id of [u.id, a1.id, t1.id, a1b.id, cp.id]) assert.equal(s.regenerateTarget(id), u.id);

      await s.navigate(s.regenerateTarget(a1b.id));
      const a2 = await s.append(assistant('另一个开头'));
      assert.equal(a2.parentId, u.id);
      assert.deepEqual(s.variants(a2.id), { siblings: [a1, a2], index: 1 });
      assert.deepEqual(s.variants(a1.id).index, 0);
      assert.deepEqual(s.variants(u.id), { siblings: [u], index: 0 });
      await s.close();
    });

    it('variants group by type: an edit-as-new-branch user entry is a variant of the user entry', async () => {
      const s = await newSession();
      const u1 = await s.append(user('原文'));
      const a1 = await s.append(assistant('回复'));
      await s.navigate(null);
      const u2 = await s.append(user('改写'));
      assert.deepEqual(ids(s.variants(u1.id).siblings), [u1.id, u2.id]);
      assert.deepEqual(ids(s.variants(a1.id).siblings), [a1.id]);
      await s.close();
    });

    it('tipOf is the last leaf inside the subtree (appends and navigation), and survives reopen', async () => {
      const s = await newSession();
      const u = await s.append(user('一'));
      const a1 = await s.append(assistant('甲'));
      const u2 = await s.append(user('二'));
      const a1deep = await s.append(assistant('甲续'));
      await s.navigate(u.id);
      const b1 = await s.append(assistant('乙'));
      assert.equal(s.tipOf(a1.id), a1deep.id);
      assert.equal(s.tipOf(b1.id), b1.id);
      // Switch to variant A at its tip, then step back to u2 inside it: the tip follows.
      await s.navigate(s.tipOf(a1.id));
      await s.navigate(u2.id);
      await s.navigate(b1.id);
      assert.equal(s.tipOf(a1.id), u2.id);
      assert.equal(s.tipOf(u.id), b1.id);
      const r = await reopen(s);
      assert.equal(r.tipOf(a1.id), u2.id);
      assert.equal(r.tipOf(b1.id), b1.id);
      await r.close();
    });

    it('regenerateTarget fails clearly where no instruction precedes', async () => {
      const s = await newSession();
      const st = await s.append({ type: 'state', state: {}, by: 'import', warnings: [] });
      assert.throws(() => s.regenerateTarget(st.id), (e: unknown) => e instanceof SessionError && e.code === 'no-turn');
      assert.throws(() => s.regenerateTarget('nope'), (e: unknown) => e instanceof SessionError && e.code === 'unknown-entry');
      assert.throws(() => s.variants('nope'), SessionError);
      assert.throws(() => s.tipOf('nope'), SessionError);
      await s.close();
    });
  });

  describe('side entries', () => {
    it('edit, hide and label: latest wins, the leaf does not move, the original stays in the file', async () => {
      const s = await newSession();
      const u = await s.append(user('原文'));
      const a = await s.append(assistant('回复'));
      const e1 = await s.appendSide({ type: 'edit', targetId: u.id, text: '改一' });
      await s.appendSide({ type: 'edit', targetId: u.id, text: '改二' });
      await s.appendSide({ type: 'hide', targetId: a.id, hidden: true });
      await s.appendSide({ type: 'label', targetId: a.id, label: '转折' });
      assert.equal(e1.parentId, a.id); // where the leaf was
      assert.equal(s.leafId, a.id);
      assert.equal(s.textOf(u.id), '改二');
      assert.equal(s.sideFor(u.id, 'edit')?.text, '改二');
      assert.ok(s.isHidden(a.id));
      assert.equal(s.labelOf(a.id), '转折');
      await s.appendSide({ type: 'hide', targetId: a.id, hidden: false });
      await s.appendSide({ type: 'label', targetId: a.id, label: '' });
      assert.ok(!s.isHidden(a.id));
      assert.equal(s.labelOf(a.id), undefined);
      assert.equal((s.get(u.id) as { text: string }).text, '原文');
      const r = await reopen(s);
      assert.equal(r.textOf(u.id), '改二');
      assert.ok(!r.isHidden(a.id));
      assert.equal(r.leafId, a.id);
      await r.close();
    });

    it('a label on the header id renames the session without touching line 1', async () => {
      const s = await newSession();
      const line1 = fs.readFileSync(s.file, 'utf8').split('\n')[0];
      assert.equal(s.title, '雨夜');
      await s.appendSide({ type: 'label', targetId: s.header.id, label: '雨夜·二稿' });
      assert.equal(s.title, '雨夜·二稿');
      const r = await reopen(s);
      assert.equal(r.title, '雨夜·二稿');
      assert.equal(fs.readFileSync(s.file, 'utf8').split('\n')[0], line1);
      await r.close();
    });

    it('refuses side entries on unknown targets, edits of text-less entries, and leaf via appendSide', async () => {
      const s = await newSession();
      const cp = await s.append({ type: 'checkpoint', commit: 'c', ref: 'r', changed: [] });
      await rejectsWith(s.appendSide({ type: 'hide', targetId: 'nope', hidden: true }), 'unknown-entry');
      await rejectsWith(s.appendSide({ type: 'edit', targetId: cp.id, text: 'x' }), 'invalid-entry');
      await rejectsWith(s.appendSide({ type: 'leaf', targetId: null }), 'invalid-entry');
      await rejectsWith(s.appendSide({ type: 'user', text: 'x' } as never), 'invalid-entry');
      assert.equal(s.textOf(cp.id), '');
      await s.close();
    });
  });

  describe('context', () => {
    it('applies edits, leaves out hidden messages and bookkeeping entries', async () => {
      const s = await newSession();
      const u1 = await s.append(user('一'));
      const a1 = await s.append(assistant('甲'));
      await s.append({ type: 'checkpoint', commit: 'c', ref: 'r', changed: [] });
      await s.append({ type: 'state', state: {}, by: 'scribe', warnings: [] });
      const u2 = await s.append(user('二'));
      const a2 = await s.append(assistant('乙'));
      await s.appendSide({ type: 'edit', targetId: a1.id, text: '甲（改）' });
      await s.appendSide({ type: 'hide', targetId: u2.id, hidden: true });
      assert.deepEqual(s.context(), [
        { entryId: u1.id, role: 'user', text: '一' },
        { entryId: a1.id, role: 'assistant', text: '甲（改）' },
        { entryId: a2.id, role: 'assistant', text: '乙' },
      ]);
      assert.deepEqual(ids(s.path(a1.id)), [u1.id, a1.id]);
      assert.equal(s.context(a1.id).length, 2);
      assert.deepEqual(s.context(null), []);
      await s.close();
    });

    it('keeps a call with its visible result or none yet; includes errored and aborted replies that have text', async () => {
      const s = await newSession();
      await s.append(user('写'));
      const a1 = await s.append(
        assistant('先看看', {
          toolCalls: [
            { id: 'c1', name: 'read_file', arguments: '{}' },
            { id: 'c2', name: 'read_file', arguments: '{}' },
          ],
        }),
      );
      const t1 = await s.append(tool('c1', '内容'));
      const orphan = await s.append(tool('cX', '无主'));
      const aborted = await s.append(assistant('写到一半', { finish: 'aborted', toolCalls: [{ id: 'c3', name: 'append_file', arguments: '{}' }] }));
      await s.append(assistant('', { finish: 'error', error: 'HTTP 500' }));
      const ctx = s.context();
      // Unanswered calls (c2, c3) stay: the request builder answers them "not run".
      assert.deepEqual(ctx, [
        { entryId: ctx[0].entryId, role: 'user', text: '写' },
        { entryId: a1.id, role: 'assistant', text: '先看看', toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{}' }, { id: 'c2', name: 'read_file', arguments: '{}' }] },
        { entryId: t1.id, role: 'tool', text: '内容', callId: 'c1', name: 'append_file' },
        { entryId: aborted.id, role: 'assistant', text: '写到一半', toolCalls: [{ id: 'c3', name: 'append_file', arguments: '{}' }], finish: 'aborted' },
      ]);
      assert.ok(!ctx.some((m) => m.entryId === orphan.id));
      // Hiding the caller drops its result too; hiding a result drops its call.
      await s.appendSide({ type: 'hide', targetId: a1.id, hidden: true });
      assert.ok(!s.context().some((m) => m.role === 'tool'));
      await s.appendSide({ type: 'hide', targetId: a1.id, hidden: false });
      await s.appendSide({ type: 'hide', targetId: t1.id, hidden: true });
      assert.deepEqual(s.context().find((m) => m.entryId === a1.id)?.toolCalls?.map((c) => c.id), ['c2']);
      await s.close();
    });

    it('contextWithSummary starts after the entry the active summary covers through', async () => {
      const s = await newSession();
      await s.append(user('一'));
      const a1 = await s.append(assistant('甲'));
      const u2 = await s.append(user('二'));
      const a2 = await s.append(assistant('乙'));
      const sum = await s.append({ type: 'summary', text: '前情：一、甲', coversThroughId: a1.id });
      const u3 = await s.append(user('三'));
      const view = s.contextWithSummary();
      assert.equal(view.summary?.id, sum.id);
      assert.equal(view.summaryText, '前情：一、甲');
      assert.deepEqual(view.messages.map((m) => m.entryId), [u2.id, a2.id, u3.id]);
      await s.appendSide({ type: 'edit', targetId: sum.id, text: '改过的前情' });
      assert.equal(s.contextWithSummary().summaryText, '改过的前情');
      await s.appendSide({ type: 'hide', targetId: sum.id, hidden: true });
      assert.equal(s.contextWithSummary().summary, undefined);
      assert.equal(s.contextWithSummary().messages.length, 5);
      assert.equal(s.lastOnPath('summary')?.id, sum.id);
      assert.equal(s.lastOnPath('summary', a2.id), undefined);
      assert.equal(s.lastOnPath('user')?.id, u3.id);
      await s.close();
    });
  });

  describe('change events', () => {
    it('fire after every append, side entry and navigation; dispose stops them', async () => {
      const s = await newSession();
      const seen: SessionChange['kind'][] = [];
      const sub = s.onDidChange((c) => {
        seen.push(c.kind);
        assert.ok(s.get(c.entry.id), 'the entry is indexed before listeners run');
      });
      s.onDidChange(() => {
        throw new Error('a broken view');
      });
      const u = await s.append(user('一'));
      await s.appendSide({ type: 'hide', targetId: u.id, hidden: true });
      await s.navigate(null);
      sub.dispose();
      await s.append(user('二'));
      assert.deepEqual(seen, ['append', 'side', 'navigate']);
      await s.flush();
      await s.close();
    });
  });
});
