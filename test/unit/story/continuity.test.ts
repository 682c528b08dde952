// The continuity step of the Story over a real folder, a real checkpoint store, a real session file
// and the local model server: after a turn's scribe the prose it added is checked, the findings go
// on the scribe's state entry (one findings side entry, none when clean), they follow the branch,
// a branch move during the judge's call drops them, Mark as Intended keeps one away on this
// branch, Check This Chapter stores on the branch's state (or shows without storing), and the
// setting turns the check off. The quick fixes' words and state edits are checked as plain data.
import { strict as assert } from 'node:assert';
import type { Finding } from '../../../src/continuity/types';
import type { WorldlineSettings } from '../../../src/model/settings';
import type { FindingsEntry, StateEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { registerRoster } from '../../../src/state/roster';
import type { SceneState } from '../../../src/state/types';
import { Story, fixInstruction, proseByFile, stateEditFor, stateFixFor, type StoryProject } from '../../../src/story';
import { bySystemPrompt, type RecordedRequest, type ScriptedReplySpec } from '../../fixtures/modelServer';
import { CHAPTER, FakeHost, openStoryFixture, type StoryFixture } from './helpers';

const SCRIBE_MARK = '你是场记';
/** The judge's requests: no tools (not the agent), not the scribe's. */
const isJudge = (r: RecordedRequest): boolean => !r.tools?.length && !(r.system ?? '').includes(SCRIBE_MARK) && !(r.system ?? '').includes('摘要员');

/** 青梧 left the inn (in the roster, not in the scene); 林砚 is here. */
function departedScene(): SceneState {
  const s = openingState({ time: '傍晚', location: '客栈' });
  s.characters['林砚'] = { affinity: 0, status: '', notes: '', at: '客栈' };
  s.roster.characters['青梧'] = '午后';
  s.roster = registerRoster(s);
  return s;
}

const SEEDED = '\n林砚推门进来，抖了抖伞上的雨。\n青梧说：“你来晚了。”\n';
const CLEAN = '\n林砚推门进来，抖了抖伞上的雨。\n';

class ContinuityHost extends FakeHost {
  check: WorldlineSettings['continuityCheck'];
  scribeModel: string | undefined;
  opening: SceneState | undefined;
  override project(): StoryProject {
    const p = super.project();
    return this.opening ? { ...p, branchOptions: { ...p.branchOptions, opening: this.opening } } : p;
  }
  override settings(): WorldlineSettings {
    const s = super.settings();
    return { ...s, ...(this.check ? { continuityCheck: this.check } : {}), ...(this.scribeModel !== undefined ? { scribeModel: this.scribeModel } : {}) };
  }
}

describe('Story: the continuity check', function () {
  this.timeout(30000);
  let fixture: StoryFixture;
  let host: ContinuityHost;
  let story: Story;
  /** What the judge answers (the prompt's candidates confirmed, as the real prompt asks). */
  let judge: (req: RecordedRequest) => ScriptedReplySpec | Promise<ScriptedReplySpec>;

  beforeEach(async () => {
    fixture = await openStoryFixture('never');
    fixture.story.dispose();
    host = new ContinuityHost(fixture.book, fixture.server);
    host.setting = 'never';
    story = new Story(host, fixture.book.session);
    fixture.server.route(bySystemPrompt(SCRIBE_MARK), { text: JSON.stringify({ patch: { time: '入夜' } }) }, 'scribe');
    judge = (req) => ({ text: confirmAll(req) });
    fixture.server.route(isJudge, (req) => judge(req), 'judge');
    // The state the turns start from: a departed character (an edit by the novelist).
    await fixture.book.session.append({ type: 'state', state: departedScene(), by: 'user', warnings: [] });
  });
  afterEach(async () => {
    story.dispose();
    await fixture.close();
  });

  const session = () => fixture.book.session;

  async function turn(prose: string): Promise<{ user: UserEntry; state: StateEntry }> {
    fixture.server.enqueue(
      { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content: prose }) }] },
      { text: '写好了。' },
    );
    const result = await story.send('写下去。');
    await story.idle();
    assert.equal(result?.status, 'done', result?.error);
    const user = session().get(result.userEntryId as string) as UserEntry;
    const state = session().lastOnPath('state') as StateEntry;
    assert.equal(state.by, 'scribe');
    return { user, state };
  }

  const findingsEntries = (): FindingsEntry[] => session().entries().filter((e): e is FindingsEntry => e.type === 'findings');

  it('after the scribe: the turn\'s prose is checked, the findings go on the scribe\'s state entry', async () => {
    const { user, state } = await turn(SEEDED);
    const written = findingsEntries();
    assert.equal(written.length, 1, 'one findings entry');
    assert.equal(written[0]?.targetId, state.id);
    const turns = story.findings();
    assert.equal(turns.length, 1);
    assert.equal(turns[0]?.stateId, state.id);
    assert.equal(turns[0]?.turnId, user.id);
    const departed = turns[0]?.findings.find((f) => f.type === 'departed-acts');
    assert.ok(departed, JSON.stringify(turns[0]?.findings));
    assert.equal(departed.subject, '青梧');
    assert.equal(departed.by, 'judge', 'confirmed by the side model');
    assert.equal(fixture.server.chatRequests().filter(isJudge).length, 1, 'one judge call for the turn');
    assert.equal(departed.file, CHAPTER);
    assert.ok(fixture.book.prose.includes(departed.quote), 'the quote is a substring of the chapter');
    if (departed.offset !== undefined) assert.equal(fixture.book.prose.slice(departed.offset, departed.offset + departed.quote.length), departed.quote, 'the offset is in the chapter');
    // Stored, read back from the file.
    const { session: again } = await Session.open(session().file, { readOnly: true });
    assert.deepEqual(again.sideFor(state.id, 'findings')?.findings, written[0]?.findings);
    await again.close();
  });

  it('a clean turn appends no findings entry', async () => {
    await turn(CLEAN);
    assert.deepEqual(findingsEntries(), []);
    assert.deepEqual(story.shownFindings(), []);
  });

  it('the setting off: nothing is checked, nothing asked of the side model', async () => {
    host.check = 'off';
    await turn(SEEDED);
    assert.deepEqual(findingsEntries(), []);
    assert.equal(fixture.server.chatRequests().filter(isJudge).length, 0);
  });

  it('follows the branch: another branch does not show them; the event fires on the move', async () => {
    const { user } = await turn(SEEDED);
    assert.equal(story.shownFindings().length > 0, true);
    let fired = 0;
    const sub = story.onDidChangeFindings(() => fired++);
    const leaf = session().leafId;
    await session().navigate(user.parentId);
    assert.deepEqual(story.findings(), [], 'before the turn: none');
    await turn(CLEAN); // another branch from the same place
    assert.deepEqual(story.findings(), [], 'the sibling branch has its own (none)');
    await session().navigate(leaf);
    assert.equal(story.findings().length, 1, 'back on the branch: they are there again');
    assert.ok(fired >= 2, `fired ${fired}`);
    sub.dispose();
  });

  it('a branch move during the judge\'s call drops the result: nothing is written', async () => {
    let moved: Promise<void> | undefined;
    let fork: string | null = null;
    judge = async (req) => {
      // The novelist switches away while the side model thinks.
      moved ??= session().navigate(fork);
      await moved;
      return { text: confirmAll(req) };
    };
    fixture.server.enqueue(
      { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content: SEEDED }) }] },
      { text: '写好了。' },
    );
    fork = session().leafId;
    const result = await story.send('写下去。');
    await story.idle();
    assert.equal(result?.status, 'done');
    assert.equal(fixture.server.chatRequests().filter(isJudge).length, 1, 'the judge was asked');
    assert.ok(moved, 'the branch moved during the call');
    assert.deepEqual(findingsEntries(), [], 'dropped: the branch moved during the call');
    assert.ok(host.logged.some((l) => /branch moved during the check/.test(l)), host.logged.join('\n'));
  });

  it('a branch move before the result is written drops it too (the guard is checked in the write queue)', async () => {
    // checkChapter notes the leaf before asking; the novelist moves while the side model's key is fetched.
    const { user } = await turn(CLEAN);
    const realKeys = host.keys.bind(host);
    host.keys = async () => {
      await session().navigate(user.parentId);
      return realKeys();
    };
    const outcome = await story.checkChapter(CHAPTER, SEEDED);
    assert.equal(outcome.kind, 'stale');
    assert.deepEqual(findingsEntries(), []);
  });

  it('Mark as Intended: a new entry with the id in `intended`; it does not come back on this branch', async () => {
    const { state } = await turn(SEEDED);
    const shown = story.shownFindings();
    const target = shown[0]?.finding as Finding;
    assert.ok(target);
    let fired = 0;
    const sub = story.onDidChangeFindings(() => fired++);
    assert.equal(await story.markIntended(target.id), true);
    assert.equal(fired, 1);
    assert.ok(!story.shownFindings().some((s) => s.finding.id === target.id), 'not shown any more');
    const latest = session().sideFor(state.id, 'findings') as FindingsEntry;
    assert.deepEqual(latest.intended, [target.id]);
    assert.equal(latest.findings.length, findingsEntries()[0]?.findings.length, 'the findings stay as they were');
    assert.equal(await story.markIntended(target.id), false, 'marked already');
    assert.equal(await story.markIntended('no-such-id'), false);
    // Checking the chapter again finds it again: still marked.
    await story.checkChapter(CHAPTER, fixture.book.prose);
    assert.ok(!story.shownFindings().some((s) => s.finding.id === target.id && s.stateId === state.id), 'still intended after a new check');
    // Reopened: still intended.
    const { session: again } = await Session.open(session().file, { readOnly: true });
    assert.deepEqual(again.sideFor(state.id, 'findings')?.intended, [target.id]);
    await again.close();
    sub.dispose();
  });

  it('Check This Chapter: the whole chapter against the branch\'s state, stored on its last state entry', async () => {
    const { state } = await turn(CLEAN);
    fixture.book.write('\n青梧说：“我回来了？”\n'); // hand-written
    const outcome = await story.checkChapter(CHAPTER, fixture.book.prose);
    assert.equal(outcome.kind, 'stored', JSON.stringify(outcome));
    assert.equal(outcome.kind === 'stored' && outcome.stateId, state.id);
    assert.equal(session().sideFor(state.id, 'findings')?.findings.some((f) => f.subject === '青梧'), true);
    // Fixed by hand and checked again: this chapter's findings there are replaced (cleared).
    const fixed = fixture.book.prose.replace('青梧说：“我回来了？”', '林砚说：“我回来了。”');
    const again = await story.checkChapter(CHAPTER, fixed);
    assert.equal(again.kind, 'clean');
    assert.deepEqual(session().sideFor(state.id, 'findings')?.findings, []);
  });

  it('Check This Chapter on a branch with no scene state yet: shown, not stored', async () => {
    host.opening = departedScene(); // the book opens with 青梧 gone
    await session().navigate(null);
    const outcome = await story.checkChapter(CHAPTER, SEEDED);
    assert.equal(outcome.kind, 'unstored', JSON.stringify(outcome));
    assert.ok(outcome.kind === 'unstored' && outcome.findings.some((f) => f.subject === '青梧'));
    assert.deepEqual(findingsEntries(), []);
    assert.deepEqual(story.findings(), []);
  });

  it('without a side model only the rules\' high-confidence findings, marked as by the rules', async () => {
    host.scribeModel = '';
    // The rules are unsure here (someone came in just before): without a judge it is not shown.
    assert.equal((await story.checkChapter(CHAPTER, SEEDED)).kind, 'clean');
    const outcome = await story.checkChapter(CHAPTER, '青梧说：“走吧。”\n');
    assert.equal(fixture.server.chatRequests().filter(isJudge).length, 0, 'no side model: no judge call');
    assert.equal(outcome.kind, 'stored', JSON.stringify(outcome));
    assert.ok(outcome.kind === 'stored' && outcome.findings.length > 0);
    for (const f of outcome.kind === 'stored' ? outcome.findings : []) {
      assert.equal(f.confidence, 'high');
      assert.equal(f.by, 'rules');
    }
  });
});

describe('continuity: the quick fixes\' words and edits', () => {
  const finding: Finding = {
    id: 'x', type: 'departed-acts', file: 'chapters/03.md', quote: '青梧说：“你来晚了。”', subject: '青梧',
    reason: '青梧已经离开客栈', confidence: 'high', by: 'rules',
  };

  it('Ask the Agent to Fix: the instruction names the quote, the reason and the file, in the project\'s language', () => {
    const zh = fixInstruction(finding, 'zh');
    for (const part of [finding.quote, finding.reason, finding.file]) assert.ok(zh.includes(part), part);
    assert.match(zh, /连续性/);
    const en = fixInstruction({ ...finding, quote: 'Elara said, "Late."', reason: 'Elara left the inn' }, 'en');
    for (const part of ['Elara said, "Late."', 'Elara left the inn', 'chapters/03.md']) assert.ok(en.includes(part), part);
    assert.match(en, /continuity/);
    assert.doesNotMatch(en, /[\u4e00-\u9fff]/, 'no Chinese in the English instruction');
  });

  it('Update Scene State: the fix the finding implies, prefilled; none where the prose is what is wrong', () => {
    const state = departedScene();
    assert.deepEqual(stateFixFor(finding, state), { characters: { 青梧: { at: '客栈' } } });
    const edit = stateEditFor(finding, state, 'zh');
    assert.equal(edit.prefilled, true);
    assert.match(edit.yaml, /青梧:\n\s+affinity: 0[\s\S]*at: 客栈/);
    const held = { ...state, items: ['黄铜怀表（青梧持有）'] };
    held.roster = registerRoster(held);
    const twoHolders: Finding = { ...finding, type: 'two-holders', subject: '黄铜怀表', expected: '青梧', quote: '林砚掏出黄铜怀表看了一眼。' };
    assert.deepEqual(stateFixFor(twoHolders, held), { items: ['黄铜怀表（林砚持有）'] });
    assert.equal(stateFixFor({ ...twoHolders, quote: '有人掏出黄铜怀表。' }, held), undefined, 'no other holder named: nothing to prefill');
    assert.equal(stateFixFor({ ...finding, type: 'misspelt-name' }, state), undefined);
    const plain = stateEditFor({ ...finding, type: 'time-backwards' }, state, 'zh');
    assert.equal(plain.prefilled, false);
    assert.match(plain.yaml, /time: 傍晚/);
  });

  it('the prose a turn added, per chapter, with where it starts; codex files left out', () => {
    const added = proseByFile([
      { path: CHAPTER, before: '# 一\n旧的。\n', after: '# 一\n旧的。\n新的一句。\n', kind: 'append' },
      { path: 'codex/qingwu.md', before: undefined, after: '青梧', kind: 'write' },
      { path: CHAPTER, before: '# 一\n旧的。\n新的一句。\n', after: '# 一\n旧的。\n新的一句。\n又一句。\n', kind: 'append' },
      { path: 'chapters/02.md', before: undefined, after: '第二章。', kind: 'write' },
    ]);
    assert.deepEqual(added.map((p) => [p.file, p.text, p.start]), [
      [CHAPTER, '新的一句。\n又一句。\n', '# 一\n旧的。\n'.length],
      ['chapters/02.md', '第二章。', 0],
    ]);
  });
});

/**
 * A judge that confirms every candidate the prompt lists, quoting the candidate's own quote: the
 * answer shape the real prompt asks for (src/continuity/judge.ts), built from the prompt.
 */
function confirmAll(req: RecordedRequest): string {
  const user = String(req.messages?.find((m) => m.role === 'user')?.content ?? '');
  return confirmAllFor(user);
}

function confirmAllFor(user: string): string {
  const numbers = [...user.matchAll(/^(\d+)\. \[/gm)].map((m) => Number(m[1]));
  return JSON.stringify({ verdicts: numbers.map((candidate) => ({ candidate, error: true, quote: '', reason: '' })) });
}
