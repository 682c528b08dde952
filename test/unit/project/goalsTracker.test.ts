// The goal tracker over a real .worldline/goals.json: readings make today's and the session's
// figures, the file is written atomically and read back, midnight passes, a corrupt file is set
// aside with a warning and the history starts over, a file that cannot be read is never overwritten.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GoalTracker, nodeGoalIo, type GoalFileIo } from '../../../src/project/goalTracker';
import { HISTORY_FILE, parseHistory } from '../../../src/project/goals';

const dirs: string[] = [];
function book(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-goals-'));
  dirs.push(root);
  return root;
}
const fileOf = (root: string): string => path.join(root, ...HISTORY_FILE.split('/'));

/** A clock the test moves. */
function clock(start: Date): { now: () => Date; set(d: Date): void } {
  let at = start;
  return { now: () => at, set: (d) => { at = d; } };
}

describe('goal tracker', () => {
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('today and the session count from their first reading; the file holds the day and reads back', async () => {
    const root = book();
    const c = clock(new Date(2026, 11, 2, 9, 0));
    const warnings: string[] = [];
    const t = new GoalTracker({ root, warn: (m) => warnings.push(m), now: c.now, writeDelayMs: 5 });
    t.reading({ total: 5000, session: 's1' }); // before the file was read: kept and applied after
    await t.whenLoaded();
    t.reading({ total: 5600, session: 's1' });
    assert.equal(t.today(), 600);
    assert.equal(t.session(), 600);
    await t.dispose();
    assert.equal(warnings.length, 0, warnings.join('\n'));
    const saved = parseHistory(fs.readFileSync(fileOf(root), 'utf8'));
    assert.deepEqual(saved.history.days, { '2026-12-02': { start: 5000, end: 5600 } });
    assert.deepEqual(fs.readdirSync(path.dirname(fileOf(root))).filter((f) => f.endsWith('.tmp')), [], 'no temp file left');

    // Reopened later the same day: the day goes on from the morning; the sitting starts again.
    c.set(new Date(2026, 11, 2, 20, 0));
    const again = new GoalTracker({ root, warn: (m) => warnings.push(m), now: c.now, writeDelayMs: 5 });
    await again.whenLoaded();
    again.reading({ total: 5600, session: 's1' });
    again.reading({ total: 5700, session: 's1' });
    assert.equal(again.today(), 700);
    assert.equal(again.session(), 100);
    await again.dispose();
  });

  it('another session starts a new sitting; a rebase keeps what the day and the session showed', async () => {
    const t = new GoalTracker({ root: book(), warn: () => undefined, now: () => new Date(2026, 11, 2, 10), writeDelayMs: 5 });
    await t.whenLoaded();
    t.reading({ total: 100, session: 'a' });
    t.reading({ total: 180, session: 'a' });
    t.reading({ total: 180, session: 'b' });
    assert.equal(t.session(), 0);
    t.reading({ total: 200, session: 'b' });
    assert.equal(t.session(), 20);
    t.reading({ total: 9000, session: 'b', rebase: true });
    assert.equal(t.today(), 100);
    assert.equal(t.session(), 20);
    t.reading({ total: 9010, session: 'b' });
    assert.equal(t.today(), 110);
    assert.equal(t.session(), 30);
    t.reading({ total: 100, session: 'b' });
    assert.equal(t.session(), 0, 'never below zero');
    assert.equal(t.today(), 0);
    await t.dispose();
  });

  it('crossing midnight: the new day starts where the last one ended, and the tooltip days show both', async () => {
    const root = book();
    const c = clock(new Date(2026, 11, 1, 23, 58));
    const t = new GoalTracker({ root, warn: () => undefined, now: c.now, writeDelayMs: 5 });
    await t.whenLoaded();
    t.reading({ total: 1000, session: 's' });
    t.reading({ total: 1500, session: 's' });
    c.set(new Date(2026, 11, 2, 0, 1));
    assert.equal(t.today(), 0, 'a new day has written nothing yet');
    t.reading({ total: 1800, session: 's' });
    assert.equal(t.today(), 300);
    assert.equal(t.session(), 800, 'the sitting goes on across midnight');
    assert.deepEqual(t.days(14), [{ day: '2026-12-02', words: 300 }, { day: '2026-12-01', words: 500 }]);
    await t.dispose();
  });

  it('a corrupt history file: a warning, the file set aside (nothing lost), a fresh history; never a throw', async () => {
    const root = book();
    fs.mkdirSync(path.dirname(fileOf(root)), { recursive: true });
    fs.writeFileSync(fileOf(root), '{"version":1,"days":{"2026-12-0');
    const warnings: string[] = [];
    const t = new GoalTracker({ root, warn: (m) => warnings.push(m), now: () => new Date(2026, 11, 2, 12), writeDelayMs: 5 });
    await t.whenLoaded();
    assert.ok(warnings.some((w) => /not valid JSON.*starts over/.test(w)), warnings.join('\n'));
    assert.ok(warnings.some((w) => /kept as goals\.json\.broken-/.test(w)), warnings.join('\n'));
    const aside = fs.readdirSync(path.dirname(fileOf(root))).find((f) => f.startsWith('goals.json.broken-'));
    assert.ok(aside);
    assert.equal(fs.readFileSync(path.join(path.dirname(fileOf(root)), aside), 'utf8'), '{"version":1,"days":{"2026-12-0');
    t.reading({ total: 10, session: undefined });
    t.reading({ total: 25, session: undefined });
    assert.equal(t.today(), 15);
    await t.dispose();
    assert.equal(parseHistory(fs.readFileSync(fileOf(root), 'utf8')).corrupt, false, 'a good file replaced it');
  });

  it('a file that cannot be read is never overwritten; a failed write is a warning', async () => {
    const warnings: string[] = [];
    const writes: string[] = [];
    const unreadable: GoalFileIo = { read: () => Promise.reject(new Error('EACCES')), write: (_f, text) => (writes.push(text), Promise.resolve()), setAside: () => Promise.reject(new Error('no')) };
    const t = new GoalTracker({ root: book(), warn: (m) => warnings.push(m), io: unreadable, writeDelayMs: 1 });
    await t.whenLoaded();
    t.reading({ total: 1, session: 's' });
    t.reading({ total: 2, session: 's' });
    assert.equal(t.today(), 1, 'today still counts');
    await t.dispose();
    assert.deepEqual(writes, []);
    assert.ok(warnings.some((w) => /could not read.*left as it is/.test(w)));

    const failing: GoalFileIo = { ...nodeGoalIo, read: () => Promise.resolve(undefined), write: () => Promise.reject(new Error('disk full')) };
    const warned: string[] = [];
    const u = new GoalTracker({ root: book(), warn: (m) => warned.push(m), io: failing, writeDelayMs: 1 });
    await u.whenLoaded();
    u.reading({ total: 3, session: 's' });
    await u.flush();
    assert.ok(warned.some((w) => /could not write the goal history.*disk full/.test(w)), warned.join('\n'));
    await u.dispose();
  });

  it('steady typing that never pauses long still gets written', async () => {
    const root = book();
    const t = new GoalTracker({ root, warn: () => undefined, now: () => new Date(2026, 11, 2, 12), writeDelayMs: 20 });
    await t.whenLoaded();
    let total = 0;
    const until = Date.now() + 400;
    while (Date.now() < until && !fs.existsSync(fileOf(root))) {
      t.reading({ total: (total += 3), session: 's' });
      await new Promise((r) => setTimeout(r, 8));
    }
    assert.ok(fs.existsSync(fileOf(root)), 'written while the readings kept coming');
    await t.dispose();
    assert.equal(parseHistory(fs.readFileSync(fileOf(root), 'utf8')).history.days['2026-12-02']?.end, total, 'the last reading is written at the end');
  });

  it('hostile readings (negative, fractional, NaN) are ignored', async () => {
    const t = new GoalTracker({ root: book(), warn: () => undefined, writeDelayMs: 1 });
    await t.whenLoaded();
    t.reading({ total: 10, session: 's' });
    for (const total of [-5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) t.reading({ total, session: 's' });
    t.reading({ total: 12, session: 's' });
    assert.equal(t.today(), 2);
    await t.dispose();
  });
});
