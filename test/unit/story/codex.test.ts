// The codex in the turn and in the book, over a real folder, a real checkpoint store (git), a real
// session file and the local model server: a turn's request carries the entries it names, in the
// newest instruction's block only (every earlier message is sent as before, byte for byte), what
// was injected is recorded on the session, and the lore follows the branch.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CODEX_HEADERS } from '../../../src/codex/render';
import { lastInjected, injectedAt } from '../../../src/codex/injected';
import { CodexCache, stateNames } from '../../../src/codex/story';
import { parseProjectConfig } from '../../../src/project/config';
import { ManuscriptChanges } from '../../../src/project/manuscriptChanges';
import type { AssistantEntry, ChainEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { branchOf, proseToFollow } from '../../../src/story';
import { bySystemPrompt, type RecordedMessage, type RecordedRequest } from '../../fixtures/modelServer';
import { cleanupTmp, ok, openRepo, tmpDir } from '../checkpoints/helpers';
import { CHAPTER, OPTIONS, openStoryFixture, type StoryFixture } from './helpers';

const QINGWU = 'codex/characters/qingwu.md';
const BELL = 'codex/items/bell.md';
const QINGWU_LORE = '青梧是听雨轩的掌柜，左手有一道旧疤。';
const BELL_LORE = '铜铃挂在门口，一响便有客来。';

function writeFile(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('the codex in the turn', function () {
  this.timeout(30000);
  let fixture: StoryFixture;
  beforeEach(async () => {
    fixture = await openStoryFixture('ask');
    fixture.server.route(bySystemPrompt('你是场记'), { text: JSON.stringify({ patch: {} }) }, 'scribe');
    writeFile(fixture.book.root, QINGWU, `---\nname: 青梧\nkind: character\nkeys: [掌柜]\n---\n${QINGWU_LORE}\n`);
    writeFile(fixture.book.root, BELL, `---\nname: 铜铃\nkind: item\n---\n${BELL_LORE}\n`);
  });
  afterEach(async () => {
    await fixture.close();
  });

  const agentRequests = (): RecordedRequest[] => fixture.server.chatRequests().filter((r) => r.route === 'default');
  async function turn(instruction: string): Promise<void> {
    fixture.server.enqueue(
      { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content: `\n${instruction}\n` }) }] },
      { text: '写好了。' },
    );
    const result = await fixture.story.send(instruction);
    await fixture.story.idle();
    assert.equal(result?.status, 'done', result?.error);
  }
  const lastUser = (messages: readonly RecordedMessage[]): number => messages.map((m) => m.role).lastIndexOf('user');
  async function onDisk(): Promise<readonly ChainEntry[]> {
    const { session } = await Session.open(fixture.book.session.file, { readOnly: true });
    try {
      return session.path();
    } finally {
      await session.close();
    }
  }

  it('a turn whose instruction names an entry sends its lore after the state block, and records it on the session', async () => {
    await turn('掌柜端来一壶茶。');
    const [first, second] = agentRequests();
    assert.ok(first && second);
    for (const req of [first, second]) {
      const messages = req.messages ?? [];
      const content = String(messages[lastUser(messages)]?.content);
      assert.ok(content.includes(QINGWU_LORE), 'every step of the turn carries the entry');
      assert.ok(!content.includes(BELL_LORE), 'an entry the turn does not name stays out');
      const header = content.indexOf(CODEX_HEADERS[0] as string);
      assert.ok(header > 0 && content.indexOf('掌柜端来一壶茶。') > header, 'the codex block after the state block, before the instruction');
      assert.ok(!String(messages[0]?.content).includes(QINGWU_LORE), 'nothing in the system prompt');
    }
    const path = await onDisk();
    const reply = path.find((e): e is AssistantEntry => e.type === 'assistant');
    assert.deepEqual(reply?.codex, [QINGWU], 'recorded on the turn\'s first reply');
    assert.equal(path.filter((e) => e.type === 'assistant' && e.codex !== undefined).length, 1, 'once per turn');
    const user = path.find((e): e is UserEntry => e.type === 'user');
    assert.deepEqual(lastInjected(path), { userEntryId: user?.id, paths: [QINGWU] });
    assert.deepEqual(injectedAt(path, user!.id), [QINGWU]);
  });

  it('two consecutive turns: every message before the newest instruction is sent as before, byte for byte', async () => {
    await turn('掌柜端来一壶茶。');
    await turn('门口的铜铃响了。');
    const requests = agentRequests();
    const endOfFirst = requests[1]!.messages!;
    const startOfSecond = requests[2]!.messages!;
    const at = lastUser(endOfFirst);
    // Everything but the first turn's instruction is the same bytes, at the same places.
    for (let i = 0; i < endOfFirst.length; i++) {
      if (i === at) continue;
      assert.equal(JSON.stringify(startOfSecond[i]), JSON.stringify(endOfFirst[i]), `message ${i}`);
    }
    // That instruction is replayed with its state block only: the codex block was sent once.
    const sent = String(endOfFirst[at]?.content);
    const replayed = String(startOfSecond[at]?.content);
    const header = sent.indexOf(CODEX_HEADERS[0] as string);
    const block = sent.slice(header, sent.lastIndexOf('\n\n掌柜端来一壶茶。'));
    assert.ok(block.includes(QINGWU_LORE));
    assert.equal(replayed, sent.replace(`${block}\n\n`, ''));
    // The second turn's block has the bell its instruction names.
    const newest = String(startOfSecond[lastUser(startOfSecond)]?.content);
    assert.ok(newest.includes(BELL_LORE));
    // And the third request (the second turn's second step) extends the second byte for byte.
    const next = requests[3]!.messages!;
    for (let i = 0; i < startOfSecond.length; i++) assert.equal(JSON.stringify(next[i]), JSON.stringify(startOfSecond[i]), `step 2, message ${i}`);
    const path = await onDisk();
    assert.equal(lastInjected(path)?.paths.includes(BELL), true);
  });

  it('through the Story, codex_lookup answers from the book\'s codex and writing the codex waits for the setting', async () => {
    const edit = JSON.stringify({ path: QINGWU, old_text: '旧疤', new_text: '新疤' });
    fixture.server.enqueue(
      { toolCalls: [{ name: 'codex_lookup', arguments: JSON.stringify({ query: '铜铃' }) }, { name: 'edit_file', arguments: edit }] },
      { text: '好。' },
    );
    assert.equal((await fixture.story.send('看看门口。'))?.status, 'done');
    await fixture.story.idle();
    const tools = (await onDisk()).filter((e) => e.type === 'tool');
    assert.ok(tools[0]?.type === 'tool' && tools[0].result.includes(BELL_LORE) && !tools[0].isError);
    assert.ok(tools[1]?.type === 'tool' && tools[1].isError && tools[1].result.includes('worldline.codex.agentMayWrite'));
    assert.match(fs.readFileSync(path.join(fixture.book.root, QINGWU), 'utf8'), /旧疤/);
    // The novelist allows it: the same call changes the entry.
    const allowing = fixture.host.settings.bind(fixture.host);
    fixture.host.settings = () => ({ ...allowing(), codexAgentMayWrite: true });
    fixture.server.enqueue({ toolCalls: [{ name: 'edit_file', arguments: edit }] }, { text: '改好了。' });
    assert.equal((await fixture.story.send('把疤改一改。'))?.status, 'done');
    await fixture.story.idle();
    assert.match(fs.readFileSync(path.join(fixture.book.root, QINGWU), 'utf8'), /新疤/);
  });

  it('an edited entry is read again at the next turn; an unchanged codex is not read again', async () => {
    let loads = 0;
    const cache = new CodexCache({
      root: fixture.book.root,
      folder: () => 'codex',
      load: async (root, folder) => { loads++; return (await import('../../../src/codex/load')).loadCodex(root, folder); },
    });
    const input = { instruction: '掌柜', recent: [], stateNames: [] };
    assert.match((await cache.inject(input, { lang: 'zh' })).text, /旧疤/);
    assert.match((await cache.inject(input, { lang: 'zh' })).text, /旧疤/);
    assert.equal(loads, 1);
    writeFile(fixture.book.root, QINGWU, `---\nname: 青梧\nkeys: [掌柜]\n---\n青梧的疤已经好了，只剩一道白痕。\n`);
    assert.match((await cache.inject(input, { lang: 'zh' })).text, /白痕/);
    assert.equal(loads, 2);
    // With a change feed, the folder is not even looked at until something under it changes.
    const feed = new ManuscriptChanges();
    const fed = new CodexCache({ root: fixture.book.root, folder: () => 'codex', feed });
    assert.equal((await fed.entries()).length, 2);
    fs.rmSync(path.join(fixture.book.root, BELL));
    assert.equal((await fed.entries()).length, 2, 'not told: the entries it has');
    feed.changed(['chapters/01.md']);
    assert.equal((await fed.entries()).length, 2, 'a chapter is not the codex');
    feed.changed([BELL]);
    assert.equal((await fed.entries()).length, 1);
    fed.dispose();
    cache.dispose();
  });

  it('the scene state names characters present, the location and the items held', () => {
    const state = { ...openingState({ time: '夜', location: '听雨轩', characters: ['青梧'] }), items: ['铜铃（青梧持有）', 'brass key (held by Ann)'] };
    assert.deepEqual(stateNames(state), ['青梧', '听雨轩', '铜铃', 'brass key']);
  });
});

describe('lore follows the branch', function () {
  this.timeout(30000);
  afterEach(() => cleanupTmp());

  it('an entry edited on one variant comes back when prose follows the branch to the other', async () => {
    const root = tmpDir('wl-lore-');
    writeFile(root, CHAPTER, '# 第一章\n');
    writeFile(root, QINGWU, `---\nname: 青梧\n---\n${QINGWU_LORE}\n`);
    // A manuscript that does not take in the codex: the checkpoints track it anyway.
    const { config } = parseProjectConfig('manuscript: ["chapters/**/*.md"]\n');
    assert.ok(!config.manuscriptMatcher.matches(QINGWU));
    fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
    const repo = await openRepo(root, { globs: config.trackedMatcher });
    const session = await Session.create(path.join(root, '.worldline', 'sessions', 's.jsonl'), { id: 's', title: '雨夜' });
    const lore = (): string => fs.readFileSync(path.join(root, QINGWU), 'utf8');
    const checkpoint = async (turnId: string) => {
      const made = ok(await repo.checkpoint(turnId, 's'));
      return session.append({ type: 'checkpoint', commit: made.commit, ref: made.ref, changed: made.changed });
    };
    try {
      const u1 = await session.append({ type: 'user', text: '第一回' });
      await session.append({ type: 'assistant', text: '好。', model: 'm', finish: 'stop' });
      await checkpoint(u1.id);
      // Variant A: Qingwu learns the secret.
      const u2 = await session.append({ type: 'user', text: '第二回' });
      await session.append({ type: 'assistant', text: 'A', model: 'm', finish: 'stop' });
      writeFile(root, QINGWU, `---\nname: 青梧\n---\n${QINGWU_LORE}她知道了沈砚的秘密。\n`);
      const a = await checkpoint(u2.id);
      assert.ok((a as { changed: string[] }).changed.includes(QINGWU), 'the entry is in the checkpoint');
      // Regenerate: the prose (and the lore) back to the checkpoint before the turn, variant B.
      await session.navigate(u2.id);
      await repo.restore(branchOf(session, OPTIONS, session.leafId).turnOf(u2.id)!.checkpointBefore!.commit, { undoable: false });
      assert.ok(!lore().includes('秘密'), 'variant B starts from the lore before the turn');
      await session.append({ type: 'assistant', text: 'B', model: 'm', finish: 'stop' });
      fs.appendFileSync(path.join(root, CHAPTER), '\n乙。\n');
      const bLeaf = (await checkpoint(u2.id)).id;
      // ◀ back to variant A: prose follows the branch, and the lore with it.
      await session.navigate(session.tipOf(session.children(u2.id)[0]!.id));
      const target = proseToFollow(branchOf(session, OPTIONS, session.leafId), bLeaf);
      assert.equal(target?.id, a.id);
      await repo.restore(target!.commit, { undoable: true });
      assert.ok(lore().includes('她知道了沈砚的秘密'), 'variant A\'s codex is back');
      // ▶ to B again: its entry has no secret.
      await session.navigate(bLeaf);
      await repo.restore(proseToFollow(branchOf(session, OPTIONS, session.leafId), a.id)!.commit, { undoable: true });
      assert.ok(!lore().includes('秘密'));
    } finally {
      repo.close();
      await session.close();
    }
  });
});
