// The Story's turn verbs (send, regenerate, retry, edit as a new branch, stop, save point, compact
// now) over a real folder, a real checkpoint store (git), a real session file and the local model
// server: the agent, the scribe and the summariser are real HTTP requests, and what a verb wrote is
// read back from the session file (opened again, read-only) and from the disk.
import { strict as assert } from 'node:assert';
import type { TurnResult } from '../../../src/agent/turnTypes';
import { buildTranscript, type TranscriptMessage } from '../../../src/agent/transcript';
import { requestKeys, type RequestKeys, type StoredKeys } from '../../../src/model/keys';
import type { MemorySettings, WorldlineSettings } from '../../../src/model/settings';
import type { AssistantEntry, ChainEntry, CheckpointEntry, SaveEntry, StateEntry, SummaryEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { formatState } from '../../../src/state/format';
import { formatChanges } from '../../../src/state/formatChanges';
import { Story, type FollowSetting, type StoryEvent, type StreamView } from '../../../src/story';
import { RerunCancelledError } from '../../../src/story/turns';
import { emptySidecar } from '../../../src/worldline';
import { bySystemPrompt, type RecordedRequest, type ScriptedReplySpec } from '../../fixtures/modelServer';
import { Book, CHAPTER, FakeHost, openStoryFixture, type StoryFixture } from './helpers';

const SCRIBE_MARK = '你是场记';
const SUMMARY_MARK = '摘要员';
const SUMMARY = '## 前情提要\n青梧收留了林砚。\n## 人物\n青梧：客栈掌柜。\n## 承诺与伏笔\n林砚答应天亮前离开。\n## 事实账\n银镯在青梧手里。\n## 当前场景\n客栈大堂，雨夜。';
const FILLER = '夜色沉沉，檐下的灯笼晃个不停，远处偶尔传来更夫的梆子声。';
/** The state block's budget in src/story/turns.ts: the block the model gets is formatted with it. */
const STATE_BLOCK_BUDGET = 5500;
/** Where a key was set when it is not the test server's endpoint. */
const ELSEWHERE = 'https://api.deepseek.com';

/**
 * The fixture's host with what these tests vary: the memory settings, the model, the stored keys
 * (the core's rule `requestKeys` decides what each request carries, as the shell's does), and a
 * record of every event, the scribe's status included.
 */
class TurnHost extends FakeHost {
  readonly all: StoryEvent[] = [];
  memory: Partial<MemorySettings> = {};
  model: string | undefined;
  stored: StoredKeys = {};

  override settings(): WorldlineSettings {
    const s = super.settings();
    return { ...s, model: this.model ?? s.model, memory: { ...s.memory, ...this.memory } };
  }
  override keys(settings?: WorldlineSettings): Promise<RequestKeys> {
    return Promise.resolve(requestKeys((settings ?? this.settings()).endpoints, this.stored));
  }
  /** Awaited before unsaved editors are saved for a checkpoint (the pin before an instruction). */
  beforeSave: (() => Promise<void>) | undefined;
  override async saveUnsavedToDisk(): Promise<void> {
    await this.beforeSave?.();
    return super.saveUnsavedToDisk();
  }
  /** Called with every event as it is reported (the Story's state is as it was then). */
  watch: ((event: StoryEvent) => void) | undefined;
  override report(event: StoryEvent): void {
    this.all.push(event);
    this.watch?.(event);
    super.report(event);
  }
  /** The turn ends and the scribe's status changes, in order, as compact words. */
  turnEvents(): string[] {
    return this.all.flatMap((e) => {
      if (e.kind === 'turnEnded') return [`turnEnded:${e.result.status}`];
      if (e.kind === 'scribe') return [e.status.running ? 'scribe:running' : `scribe:${e.status.last?.kind ?? 'none'}`];
      return [];
    });
  }
}

describe('Story: the turn verbs', function () {
  this.timeout(30000);
  let fixture: StoryFixture;
  let book: Book;
  let host: TurnHost;
  let story: Story;
  /** The scribe's replies: each run moves the in-story time on by one night. */
  let nights: number;
  let scribeDelayMs: number;

  async function open(setting: FollowSetting = 'ask'): Promise<void> {
    fixture = await openStoryFixture(setting);
    book = fixture.book;
    // The fixture's Story goes: this one talks to a host that records the scribe's status too.
    fixture.story.dispose();
    host = new TurnHost(book, fixture.server);
    host.setting = setting;
    story = new Story(host, book.session);
    nights = 0;
    scribeDelayMs = 0;
    fixture.server.route(bySystemPrompt(SCRIBE_MARK), (): ScriptedReplySpec => ({
      text: JSON.stringify({ patch: { time: `第${++nights}夜` } }), delayMs: scribeDelayMs,
    }), 'scribe');
    fixture.server.route(bySystemPrompt(SUMMARY_MARK), { text: SUMMARY }, 'summary');
  }

  beforeEach(() => open());
  /** The test needs another follow setting: a fresh book with it. */
  async function reopen(setting: FollowSetting): Promise<void> {
    story.dispose();
    await fixture.close();
    await open(setting);
  }
  afterEach(async () => {
    story.dispose();
    await fixture.close();
  });

  const server = () => fixture.server;
  /** The writing model's requests (everything the scribe and summary routes did not take). */
  const agentRequests = (): RecordedRequest[] => server().chatRequests().filter((r) => r.route === 'default');
  const routed = (name: string): RecordedRequest[] => server().chatRequests().filter((r) => r.route === name);

  /** The agent's next turn: append `prose` to the chapter, then say `reply`. */
  function scriptTurn(prose: string, reply = '写好了。'): void {
    server().enqueue(
      { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content: prose }) }] },
      { text: reply },
    );
  }

  /** A turn through the Story, its scribe finished. */
  async function turn(instruction: string, prose: string, reply?: string): Promise<TurnResult> {
    scriptTurn(prose, reply);
    const result = await story.send(instruction);
    await story.idle();
    assert.equal(result?.status, 'done', `the turn "${instruction}" ended ${result?.status}: ${result?.error ?? ''}`);
    return result;
  }

  /** A turn that is writing (its model holds the reply back) until it is stopped. */
  async function hold(): Promise<{ turn: Promise<TurnResult | undefined>; release(): Promise<TurnResult | undefined> }> {
    server().enqueue({ text: '……', delayMs: 60_000 });
    const asked = agentRequests().length;
    const running = story.send('慢慢写。');
    // Until the server holds the request: a stop before it arrives would leave the held reply
    // queued for the next request.
    await until(() => story.busy && agentRequests().length > asked);
    return { turn: running, release: () => { story.stop(); return running; } };
  }

  /** The branch as the session file holds it: the file opened again, read-only. */
  async function onDisk(): Promise<readonly ChainEntry[]> {
    const { session } = await Session.open(book.session.file, { readOnly: true });
    try {
      return session.path();
    } finally {
      await session.close();
    }
  }
  const types = (entries: readonly ChainEntry[]): string[] => entries.map((e) => e.type);
  const messages = (): TranscriptMessage[] => buildTranscript(book.session);
  const lastOf = <T extends ChainEntry['type']>(entries: readonly ChainEntry[], type: T) =>
    [...entries].reverse().find((e) => e.type === type) as Extract<ChainEntry, { type: T }>;
  const committed = (c: CheckpointEntry) => book.repo.readAt(c.commit, CHAPTER);

  describe('send', () => {
    it('writes the turn in order: the baseline checkpoint, the instruction, the tool\'s writing, the checkpoint, the scribe\'s state', async () => {
      const before = book.prose;
      scriptTurn('\n雨下了一夜。\n');
      const result = await story.send('写第一段。');
      assert.equal(result?.status, 'done');
      assert.ok(result.scribeDone, 'send resolves with the scribe still to come');
      await story.idle();

      assert.equal(book.prose, `${before}\n雨下了一夜。\n`, 'the tool wrote the chapter on disk');
      const entries = await onDisk();
      assert.deepEqual(types(entries), ['checkpoint', 'user', 'assistant', 'tool', 'assistant', 'checkpoint', 'state']);
      const [pin, user, call, tool, reply, checkpoint, state] = entries as [CheckpointEntry, UserEntry, AssistantEntry, ChainEntry, AssistantEntry, CheckpointEntry, StateEntry];
      assert.equal(user.text, '写第一段。');
      assert.equal(call.toolCalls?.[0]?.name, 'append_file');
      assert.equal(tool.type, 'tool');
      assert.equal(reply.text, '写好了。');
      assert.equal(reply.finish, 'stop');
      // The branch's first checkpoint is its baseline (the prose before the agent), the turn's the prose after.
      assert.equal(await committed(pin), before);
      assert.equal(await committed(checkpoint), book.prose);
      assert.deepEqual(checkpoint.changed, [CHAPTER]);
      assert.equal(state.by, 'scribe');
      assert.equal(timeOf(state), '第1夜');
      assert.equal(story.branch().state.state.time, '第1夜');

      assert.deepEqual(host.turnEvents(), ['scribe:running', 'turnEnded:done', 'scribe:applied'], 'the turn ends before the scribe\'s result');
      const ended = host.events.find((e) => e.kind === 'turnEnded');
      assert.ok(ended?.kind === 'turnEnded' && ended.result.changes.length === 1 && ended.result.changes[0]?.path === CHAPTER);
      assert.equal(story.scribe.running, false);
      assert.equal(story.scribe.last?.kind, 'applied');
      assert.equal(story.phase, 'idle');
      assert.equal(story.notice, undefined);
      assert.equal(story.busy, false);
      assert.equal(routed('scribe').length, 1, 'one scribe request');
    });

    it('pins hand edits before the instruction, and only when the manuscript moved', async () => {
      await turn('第一回', '\n一。\n');
      await turn('第二回', '\n二。\n');
      let entries = await onDisk();
      assert.deepEqual(types(entries).slice(7), ['user', 'assistant', 'tool', 'assistant', 'checkpoint', 'state'], 'nothing moved: no pin');

      book.write('\n作者手改的一句。\n');
      const edited = book.prose;
      await turn('第三回', '\n三。\n');
      entries = await onDisk();
      assert.deepEqual(types(entries).slice(13), ['checkpoint', 'user', 'assistant', 'tool', 'assistant', 'checkpoint', 'state']);
      const pin = entries[13] as CheckpointEntry;
      assert.equal(await committed(pin), edited, 'the hand edit is pinned, so a restore can bring it back');
      assert.equal(entries[14]?.parentId, pin.id);
    });

    // BUG (src/story/turns.ts, send): the pin of hand edits before the instruction is taken at
    // once (`if (!r.busy) await this.owner.checkpoint(...)`), but the runner starts the turn only
    // after the previous turn's scribe. A novelist who edits by hand and sends while the scribe
    // runs gets the pin between that turn's checkpoint and its state (…, checkpoint, pin, state,
    // user …). The turn then ends at its checkpoint (Branch.endAfter stops at the pin), so Restore
    // Prose and Chat to it lands before its state and shows the scene state of the turn before:
    // issue 11's first defect, by another road. The old shell did the same. A fix: take the pin
    // behind the scribe, as savePoint does (through the runner's queue, or after `runner.idle()`
    // inside the runner's turn start), so it lands after the state and before the instruction.
    it('a send asked while the scribe runs pins the hand edits after the scribe\'s state', async () => {
      scribeDelayMs = 300;
      scriptTurn('\n一。\n');
      assert.equal((await story.send('第一回'))?.status, 'done');
      assert.equal(story.scribe.running, true);
      const c1 = lastOf(book.session.path(), 'checkpoint');
      book.write('\n作者手改。\n');
      scriptTurn('\n二。\n');
      assert.equal((await story.send('第二回'))?.status, 'done');
      await story.idle();
      const entries = await onDisk();
      const at = entries.indexOf(entries.find((e) => e.id === c1.id)!);
      assert.deepEqual(types(entries.slice(at, at + 4)), ['checkpoint', 'state', 'checkpoint', 'user'], 'turn 1\'s state right after its checkpoint, then the pin');
      // What the novelist sees of it: Restore Prose and Chat to turn 1 must show turn 1's state.
      await story.restoreProseAndChat(c1.id);
      await story.idle();
      assert.equal(story.branch().state.state.time, '第1夜');
    });

    it('the scene state of the Branch goes to the model, on the request\'s last user message', async () => {
      const opening = story.branch().state.state;
      await turn('第一回', '\n一。\n');
      const now = story.branch().state.state;
      const block = formatState(now, { lang: 'zh', budget: STATE_BLOCK_BUDGET });
      assert.match(block, /第1夜/);
      // The second instruction carries what changed since the first (or the full state, when shorter).
      const changes = formatChanges(opening, now, { lang: 'zh' });
      const expected = changes.length < block.length ? changes : block;
      assert.match(expected, /第1夜/);
      const sent = agentRequests().length;
      await turn('第二回', '\n二。\n');
      const request = agentRequests()[sent];
      assert.ok(request?.messages, 'the second turn reached the model');
      const users = request.messages.filter((m) => m.role === 'user');
      const last = users.at(-1)?.content;
      assert.ok(typeof last === 'string');
      assert.ok(last.includes('第二回'), 'it is the new instruction');
      assert.ok(last.includes(`${expected}\n\n`), 'with the state of the branch, as what changed since the instruction before');
      // The older instruction is replayed as it was sent: with the full state before it.
      const first = formatState(opening, { lang: 'zh', budget: STATE_BLOCK_BUDGET });
      assert.ok((users[0]?.content as string).startsWith(`${first}\n\n`) && !(users[0]?.content as string).includes(block));
    });
  });

  describe('regenerate', () => {
    it('brings the prose back to the checkpoint before the turn and writes the new reply as a sibling', async () => {
      await turn('第一回', '\n一。\n');
      const p1 = book.prose;
      await turn('第二回', '\n旧的第二段。\n', '旧的回复。');
      const user2 = lastOf(book.session.path(), 'user');
      const oldFirst = book.session.path().find((e) => e.parentId === user2.id) as AssistantEntry;
      const sent = agentRequests().length;

      scriptTurn('\n新的第二段。\n', '新的回复。');
      const result = await story.regenerate();
      await story.idle();
      assert.equal(result?.status, 'done');
      assert.equal(book.prose, `${p1}\n新的第二段。\n`, 'the old paragraph is gone: the new one starts from the same prose');

      const entries = await onDisk();
      const newFirst = entries.find((e) => e.parentId === user2.id) as AssistantEntry;
      assert.notEqual(newFirst.id, oldFirst.id);
      assert.deepEqual(book.session.variants(newFirst.id).siblings.map((s) => s.id), [oldFirst.id, newFirst.id], 'a sibling of the old reply');
      assert.deepEqual(types(entries.slice(entries.indexOf(newFirst))), ['assistant', 'tool', 'assistant', 'checkpoint', 'state']);
      assert.equal((lastOf(entries, 'assistant')).text, '新的回复。');
      assert.equal(await committed(lastOf(entries, 'checkpoint')), book.prose);
      // The model did not see the old reply or its paragraph.
      const wire = JSON.stringify(agentRequests()[sent]?.messages);
      assert.ok(!wire.includes('旧的第二段') && !wire.includes('旧的回复'));
      assert.equal(host.followAsked, 0, 'the rerun moved the leaf itself: nobody was asked to bring prose along');
      assert.deepEqual(host.leaveAsked, [], 'the last reply: no later turn leaves the branch, no question');
    });

    it('an older reply with later turns: asked once with their number; No changes nothing, Yes keeps them as a variant', async () => {
      await turn('第一回', '\n一。\n');
      const p1 = book.prose;
      await turn('第二回', '\n二。\n');
      await turn('第三回', '\n三。\n');
      const p3 = book.prose;
      const oldTip = book.session.leafId;
      const first = messages().find((m) => m.role === 'assistant')!;
      const sent = agentRequests().length;
      const count = book.session.entryCount;

      host.answerLeave = false;
      assert.equal(await story.regenerate(first.id), undefined);
      assert.deepEqual(host.leaveAsked, [2], 'the two later instructions were named');
      assert.equal(agentRequests().length, sent, 'No: nothing was sent');
      assert.equal(book.session.entryCount, count, 'nothing was written');
      assert.equal(book.session.leafId, oldTip);
      assert.equal(book.prose, p3, 'and the chapter keeps every turn');

      host.answerLeave = true;
      scriptTurn('\n新的一。\n', '新的回复。');
      const result = await story.regenerate(first.id);
      await story.idle();
      assert.equal(result?.status, 'done');
      assert.deepEqual(host.leaveAsked, [2, 2], 'asked once for this regenerate');
      const prose = book.prose;
      // The later turns are still there, as the old reply's variant: its tip is the old end.
      const old = book.session.get(first.id)!;
      assert.equal(book.session.tipOf(old.id), oldTip);
      assert.equal(book.session.variants(old.id).siblings.length, 2);
      assert.equal(prose, p1.replace('\n一。\n', '\n新的一。\n'));
    });

    it('on an empty session: nothingToRegenerate, and nothing is sent or written', async () => {
      assert.equal(await story.regenerate(), undefined);
      assert.deepEqual(host.kinds(), ['nothingToRegenerate']);
      assert.equal(server().requests.length, 0);
      assert.equal(book.session.entryCount, 0);
    });

    it('unsaved editors answered Cancel: the rerun ends as an error before the model, and the disk keeps its text', async () => {
      await turn('第一回', '\n一。\n');
      await turn('第二回', '\n二。\n');
      const p2 = book.prose;
      const typed = `${p2}\n未存的一句。\n`;
      host.unsaved.set(CHAPTER, typed);
      host.dirtyAnswer = 'cancel';
      const sent = server().chatRequests().length;
      const count = book.session.entryCount;

      const result = await story.regenerate();
      const words = new RerunCancelledError('zh').message;
      assert.equal(result?.status, 'error');
      assert.equal(result.error, words);
      assert.deepEqual(story.notice, { kind: 'failed', message: words, auth: false });
      assert.equal(host.dirtyAsked, 1);
      assert.equal(server().chatRequests().length, sent, 'no request reached the model');
      assert.equal(book.prose, p2, 'nothing was restored over the chapter');
      assert.equal(host.unsaved.get(CHAPTER), typed, 'and the unsaved text is still the editor\'s');
      // What the turn recorded is the failure only: an empty reply with the error, no text from a model.
      const entries = await onDisk();
      const failed = lastOf(entries, 'assistant');
      assert.equal(failed.finish, 'error');
      assert.equal(failed.text, '');
      assert.equal(failed.error, words);
      assert.equal(book.session.entryCount, count + 2, 'the leaf move to the instruction, and the failed reply');
      assert.equal(story.canRetry, true, 'Retry runs it again once the editors are saved');
    });
  });

  describe('retry, canRetry and the notice line', () => {
    it('after a server error (500, retried by the streaming client, then given up): Retry writes the turn as a sibling', async () => {
      const failure: ScriptedReplySpec = { status: 500, headers: { 'retry-after-ms': '1' } };
      server().enqueue(failure, failure, failure);
      const t0 = Date.now();
      const result = await story.send('写第一段。');
      assert.equal(result?.status, 'error');
      assert.equal(agentRequests().length, 3, 'the streaming client tried three times in all');
      assert.ok(Date.now() - t0 < 5000, 'the server asked for 1 ms between attempts');
      assert.ok(story.notice?.kind === 'failed' && !story.notice.auth && story.notice.message, `notice: ${JSON.stringify(story.notice)}`);
      assert.equal(story.canRetry, true);
      assert.deepEqual(host.turnEvents(), ['turnEnded:error'], 'no scribe after a failed turn');
      let entries = await onDisk();
      assert.deepEqual(types(entries), ['checkpoint', 'user', 'assistant']);
      const failedReply = entries[2] as AssistantEntry;
      assert.equal(failedReply.finish, 'error');

      scriptTurn('\n雨下了一夜。\n');
      const retried = await story.retry();
      await story.idle();
      assert.equal(retried?.status, 'done');
      assert.equal(retried.userEntryId, entries[1]?.id, 'the same instruction');
      assert.equal(story.notice, undefined, 'the good turn cleared the notice');
      assert.equal(story.canRetry, false);
      entries = await onDisk();
      assert.deepEqual(types(entries), ['checkpoint', 'user', 'assistant', 'tool', 'assistant', 'checkpoint', 'state']);
      assert.deepEqual(book.session.variants(entries[2]!.id).siblings.map((s) => s.id), [failedReply.id, entries[2]!.id]);
      assert.match(book.prose, /雨下了一夜/);
    });

    it('a 401: the notice offers the key (auth), is not retried by the client, and clearNotice takes it away', async () => {
      server().enqueue({ status: 401 });
      const result = await story.send('写第一段。');
      assert.equal(result?.status, 'error');
      assert.equal(agentRequests().length, 1, 'an auth failure is not retried');
      assert.ok(story.notice?.kind === 'failed' && story.notice.auth, `notice: ${JSON.stringify(story.notice)}`);
      assert.equal(story.canRetry, true);
      story.clearNotice();
      assert.equal(story.notice, undefined);
    });

    it('after Stop: the notice says stopped, the partial reply is kept, and Retry writes the turn again', async () => {
      const held = await hold();
      assert.equal(story.canRetry, false, 'no Retry while writing');
      const stopped = await held.release();
      assert.equal(stopped?.status, 'aborted');
      assert.deepEqual(story.notice, { kind: 'stopped', kept: false }, 'stopped before the model wrote a word: nothing was kept');
      assert.equal(story.canRetry, true);
      const entries = await onDisk();
      assert.deepEqual(types(entries), ['checkpoint', 'user', 'assistant']);
      assert.equal((entries[2] as AssistantEntry).finish, 'aborted');

      scriptTurn('\n一。\n');
      const retried = await story.retry();
      await story.idle();
      assert.equal(retried?.status, 'done');
      assert.equal(retried.userEntryId, entries[1]?.id);
      assert.equal(story.notice, undefined);
      assert.equal(story.canRetry, false);
    });

    it('after Stop with some of the reply streamed: the notice says the partial reply is kept', async () => {
      server().enqueue({ text: ['雨下了', '一夜，', '……'], chunkDelayMs: 400 });
      const running = story.send('慢慢写。');
      await until(() => story.stream?.text.includes('雨下了') === true);
      story.stop();
      assert.equal((await running)?.status, 'aborted');
      assert.deepEqual(story.notice, { kind: 'stopped', kept: true });
      assert.equal(lastOf(await onDisk(), 'assistant').text.startsWith('雨下了'), true);
    });

    it('Retry with nothing to retry: a failed notice, no request', async () => {
      assert.equal(await story.retry(), undefined);
      assert.equal(story.notice?.kind, 'failed');
      assert.equal(server().requests.length, 0);
    });
  });

  describe('the key rule', () => {
    it('a key set for this endpoint goes with the turn (the agent, and the scribe on the same endpoint)', async () => {
      host.stored = { main: { key: 'sk-here', origin: new URL(server().url).origin } };
      await turn('第一回', '\n一。\n');
      assert.equal(agentRequests()[0]?.authorization, 'Bearer sk-here');
      assert.equal(routed('scribe')[0]?.authorization, 'Bearer sk-here');
    });

    it('a main key set for another endpoint is withheld: notice keyWithheld, nothing is written, no request reaches the server', async () => {
      host.stored = { main: { key: 'sk-secret-elsewhere', origin: ELSEWHERE } };
      assert.equal(await story.send('写第一段。'), undefined);
      assert.deepEqual(story.notice, { kind: 'keyWithheld', setFor: ELSEWHERE, endpoint: server().url });
      assert.equal(server().requests.length, 0);
      assert.equal(book.session.entryCount, 0, 'not even the checkpoint before the instruction');
      assert.ok(host.logged.some((m) => m.includes(ELSEWHERE)), 'the log names where the key was set for');
      assert.ok(host.logged.every((m) => !m.includes('sk-secret-elsewhere')), 'and never the key');
      // The novelist set the key again: the notice goes, and the next turn is sent.
      story.clearNotice();
      host.stored = { main: { key: 'sk-new', origin: new URL(server().url).origin } };
      await turn('写第一段。', '\n一。\n');
      assert.equal(agentRequests()[0]?.authorization, 'Bearer sk-new');
    });

    it('no model set: notice noModel, and no request', async () => {
      host.model = '';
      assert.equal(await story.send('写第一段。'), undefined);
      assert.deepEqual(story.notice, { kind: 'noModel' });
      assert.equal(server().requests.length, 0);
      assert.equal(book.session.entryCount, 0);
    });
  });

  describe('edit as a new branch', () => {
    it('an instruction: a sibling instruction with the new words, and a new turn from the prose before it', async () => {
      await turn('第一回', '\n一。\n');
      const p1 = book.prose;
      await turn('第二回', '\n二。\n');
      const user2 = lastOf(book.session.path(), 'user');
      scriptTurn('\n改过的二。\n');
      const result = await story.editAsNewBranch(user2.id, '第二回，改写');
      await story.idle();
      assert.ok(typeof result === 'object' && result.status === 'done');
      const entries = await onDisk();
      const user2b = lastOf(entries, 'user');
      assert.equal(user2b.text, '第二回，改写');
      assert.equal(user2b.parentId, user2.parentId);
      assert.deepEqual(book.session.variants(user2b.id).siblings.map((s) => s.id), [user2.id, user2b.id]);
      assert.deepEqual(types(entries.slice(entries.indexOf(user2b))), ['user', 'assistant', 'tool', 'assistant', 'checkpoint', 'state']);
      assert.equal(book.prose, `${p1}\n改过的二。\n`);
      assert.equal(host.followAsked, 0);
    });

    it('a reply: a copy beside it with the same checkpoint and state, the prose stays; an unchanged text writes nothing', async () => {
      await turn('第一回', '\n一。\n', '原来的回复。');
      const prose = book.prose;
      const reply = messages().find((m) => m.role === 'assistant')!;
      const count = book.session.entryCount;
      assert.equal(await story.editAsNewBranch(reply.id, reply.text), false, 'unchanged');
      assert.equal(book.session.entryCount, count, 'nothing written');

      assert.equal(await story.editAsNewBranch(reply.id, '改过的回复。'), true);
      await story.idle();
      const original = book.session.get(reply.id) as AssistantEntry;
      const entries = await onDisk();
      const copyFirst = entries.find((e) => e.parentId === original.parentId && e.type === 'assistant') as AssistantEntry;
      assert.notEqual(copyFirst.id, original.id);
      assert.deepEqual(book.session.variants(copyFirst.id).siblings.map((s) => s.id), [original.id, copyFirst.id]);
      const copy = entries.slice(entries.indexOf(copyFirst));
      assert.deepEqual(types(copy), ['assistant', 'tool', 'assistant', 'checkpoint', 'state']);
      const originalPath = book.session.path(book.session.tipOf(original.id));
      const originalTurn = originalPath.slice(originalPath.indexOf(original));
      assert.equal((copy[3] as CheckpointEntry).commit, (originalTurn[3] as CheckpointEntry).commit, 'the same checkpoint');
      assert.deepEqual((copy[4] as StateEntry).state, (originalTurn[4] as StateEntry).state, 'the same state');
      assert.equal((copy[2] as AssistantEntry).text, '改过的回复。');
      assert.equal(book.session.leafId, copy[4]?.id, 'the story goes on from the copy');
      assert.equal(book.prose, prose, 'the prose stays');
      assert.equal(routed('scribe').length, 1, 'no second scribe');
      assert.equal(agentRequests().length, 2, 'and no model call');
      assert.deepEqual(host.kinds(), ['turnEnded']);
    });

    it('editing an older reply moves the story back to that turn: with "always" the prose follows', async () => {
      await reopen('always');
      await turn('第一回', '\n一。\n', '第一回的回复。');
      const p1 = book.prose;
      await turn('第二回', '\n二。\n');
      const first = messages().find((m) => m.role === 'assistant')!;
      assert.equal(await story.editAsNewBranch(first.id, '第一回，改过的回复。'), true);
      await story.idle();
      assert.equal(book.prose, p1, 'the prose of turn 1');
      const state = lastOf(book.session.path(), 'state');
      assert.equal(book.session.leafId, state.id);
      assert.equal(timeOf(state), '第1夜', 'the state of turn 1, copied');
      assert.equal(host.followAsked, 0);
      const restored = host.events.find((e) => e.kind === 'restored');
      assert.ok(restored?.kind === 'restored' && !restored.withChat && restored.result.written.includes(CHAPTER));
    });

    it('a branch move during the copy stops it: replyCopyStopped, and nothing more is written there', async () => {
      await reopen('never');
      await turn('第一回', '\n一。\n');
      await turn('第二回', '\n二。\n', '第二回的回复。');
      const leaf = book.session.leafId;
      const reply = messages().filter((m) => m.role === 'assistant')[1]!;
      // The novelist clicks ◀ ▶ while the copy is being written: after its first entry.
      let moved = false;
      const listener = book.session.onDidChange((change) => {
        if (change.kind !== 'append' || moved) return;
        moved = true;
        void book.session.navigate(leaf);
      });
      try {
        assert.equal(await story.editAsNewBranch(reply.id, '改过的回复。'), false);
      } finally {
        listener.dispose();
      }
      await story.idle();
      assert.ok(moved);
      assert.ok(host.kinds().includes('replyCopyStopped'), `events: ${host.kinds().join(', ')}`);
      assert.equal(book.session.leafId, leaf, 'the novelist\'s move stands');
      const copies = book.session.variants(reply.id).siblings.filter((e) => e.id !== reply.id);
      assert.equal(copies.length, 1, 'one copy was begun');
      assert.equal(book.session.tipOf(copies[0]!.id), copies[0]!.id, 'and it stopped after its first entry');
      assert.equal((await onDisk()).at(-1)?.id, leaf);
    });
  });

  describe('save point', () => {
    const sidecar = emptySidecar();

    it('pins hand edits first; a first save, then a second on the same line', async () => {
      await turn('第一回', '\n一。\n');
      book.write('\n作者手改。\n');
      const edited = book.prose;
      const first = await story.savePoint({ name: '雨停', sidecar });
      assert.ok(first);
      let entries = await onDisk();
      assert.deepEqual(types(entries).slice(-3), ['state', 'checkpoint', 'save']);
      const pin = entries.at(-2) as CheckpointEntry;
      assert.equal(await committed(pin), edited, 'the hand edit is in the save\'s prose');
      const save1 = entries.at(-1) as SaveEntry;
      assert.equal(save1.id, first.id);
      assert.equal(save1.kind, 'first');
      assert.equal(save1.name, '雨停');
      assert.deepEqual(host.events.at(-1), { kind: 'saved', entry: first, fork: false });

      const second = await story.savePoint({ name: '', sidecar });
      entries = await onDisk();
      assert.deepEqual(types(entries).slice(-2), ['save', 'save'], 'nothing moved: no second pin');
      const save2 = entries.at(-1) as SaveEntry;
      assert.equal(save2.id, second?.id);
      assert.equal(save2.kind, 'sameLine');
      assert.equal(save2.worldlineId, save1.worldlineId);
      assert.equal(save2.parentSaveId, save1.saveId);
    });

    it('after a restore to an earlier point, the next save forks a new worldline', async () => {
      await turn('第一回', '\n一。\n');
      const p1 = book.prose;
      const c1 = lastOf(book.session.path(), 'checkpoint');
      const a = await story.savePoint({ name: '甲', sidecar });
      await turn('第二回', '\n二。\n');
      const b = await story.savePoint({ name: '乙', sidecar });
      assert.ok(a && b);
      const restored = await story.restoreProseAndChat(c1.id);
      assert.ok(restored && restored !== 'cancelled');
      assert.equal(book.prose, p1);
      assert.equal(book.session.leafId, a.id, 'the restore lands after turn 1\'s save');
      await turn('另一个第二回', '\n另一种二。\n');
      const c = await story.savePoint({ name: '丙', sidecar });
      assert.ok(c);
      assert.equal(c.kind, 'fork');
      assert.equal(c.forkFromSaveId, a.saveId);
      assert.notEqual(c.worldlineId, a.worldlineId);
      assert.deepEqual(host.events.at(-1), { kind: 'saved', entry: c, fork: true });
      assert.equal(lastOf(await onDisk(), 'save').id, c.id);
    });

    it('refused while a turn is writing (busyVerb save) and in a read-only window', async () => {
      const held = await hold();
      const count = book.session.entryCount;
      assert.equal(await story.savePoint({ name: '甲', sidecar }), undefined);
      assert.deepEqual(host.events.at(-1), { kind: 'busyVerb', verb: 'save' });
      assert.equal(book.session.entryCount, count);
      await held.release();

      const { session: readOnly } = await Session.open(book.session.file, { readOnly: true });
      const other = new Story(host, readOnly);
      try {
        host.events.length = 0;
        assert.equal(await other.savePoint({ name: '甲', sidecar }), undefined);
        assert.equal(await other.compactNow(), undefined);
        assert.deepEqual(host.kinds(), ['readOnly', 'readOnly']);
      } finally {
        other.dispose();
        await readOnly.close();
      }
      assert.ok(!types(await onDisk()).includes('save'));
    });

    it('asked while the scribe runs, the save lands after the scribe\'s state, not inside the turn', async () => {
      scribeDelayMs = 300;
      scriptTurn('\n一。\n');
      const result = await story.send('第一回');
      assert.equal(result?.status, 'done');
      assert.equal(story.scribe.running, true, 'the scribe is still at work');
      const saved = await story.savePoint({ name: '甲', sidecar });
      assert.ok(saved);
      const entries = await onDisk();
      assert.deepEqual(types(entries).slice(-3), ['checkpoint', 'state', 'save']);
      assert.equal(saved.parentId, entries.at(-2)?.id);
      assert.equal(timeOf(entries.at(-2) as StateEntry), '第1夜');
    });
  });

  describe('compact now', () => {
    it('with low memory settings: a summary after the scribe\'s state, reported as compacted', async () => {
      host.memory = { everyTurns: 2, keepTurns: 1 };
      await turn(`第一回：${FILLER.repeat(12)}`, `\n${FILLER.repeat(10)}\n`, FILLER.repeat(10));
      scribeDelayMs = 300;
      scriptTurn('\n二。\n');
      assert.equal((await story.send('第二回'))?.status, 'done');
      assert.equal(story.scribe.running, true);
      const outcome = await story.compactNow();
      assert.equal(outcome?.kind, 'applied', JSON.stringify(outcome));
      assert.equal(routed('summary').length, 1, 'one summary request');
      const entries = await onDisk();
      assert.deepEqual(types(entries).slice(-3), ['checkpoint', 'state', 'summary']);
      const summary = entries.at(-1) as SummaryEntry;
      assert.equal(summary.text.trim(), SUMMARY.trim());
      const user2 = lastOf(entries, 'user');
      assert.equal(summary.coversThroughId, entries[entries.indexOf(user2) - 1]?.id, 'it covers turn 1 and keeps the last one');
      const compacted = host.events.find((e) => e.kind === 'compacted');
      assert.ok(compacted?.kind === 'compacted' && compacted.outcome === outcome);
      assert.equal(story.branch().context.summary?.id, summary.id);
    });

    it('refused while a turn is writing: busyVerb compact', async () => {
      const held = await hold();
      assert.equal(await story.compactNow(), undefined);
      assert.deepEqual(host.events.at(-1), { kind: 'busyVerb', verb: 'compact' });
      await held.release();
      assert.equal(routed('summary').length, 0);
    });
  });

  describe('the wait: reasoning and thinking time', () => {
    /** What the Chat's streaming block showed at each redraw of it, in order. */
    function watchStream(): { change: string; phase: string; view: StreamView | undefined; at: number }[] {
      const seen: { change: string; phase: string; view: StreamView | undefined; at: number }[] = [];
      host.watch = (e) => {
        if (e.kind === 'live' && e.change !== 'render') seen.push({ change: e.change, phase: story.phase, view: story.stream && { ...story.stream }, at: Date.now() });
      };
      return seen;
    }

    it('streamed reasoning reaches StreamView.reasoning as it comes, never the reply; the reply entry keeps it for replay', async () => {
      const seen = watchStream();
      server().enqueue({ reasoning: ['先想想', '雨夜的气氛。'], text: ['雨', '下了一夜。'], chunkDelayMs: 20 });
      const t0 = Date.now();
      const result = await story.send('写第一段。');
      await story.idle();
      assert.equal(result?.status, 'done');
      const streams = seen.filter((s) => s.change === 'stream').map((s) => s.view);
      assert.deepEqual(streams.map((v) => [v?.reasoning ?? '', v?.text]), [
        ['先想想', ''], ['先想想雨夜的气氛。', ''], ['先想想雨夜的气氛。', '雨'], ['先想想雨夜的气氛。', '雨下了一夜。'],
      ], 'each piece is reported as a stream change');
      assert.ok(streams.every((v) => !v?.text.includes('想')), 'the reasoning never reaches the reply text');
      const since = streams[0]?.since;
      assert.ok(since !== undefined && since >= t0 && since <= seen[0]!.at, 'since: when the step began waiting, before the first piece');
      assert.ok(streams.every((v) => v?.since === since), 'one step: one wait');
      const reply = lastOf(await onDisk(), 'assistant');
      assert.equal(reply.text, '雨下了一夜。');
      assert.equal(reply.providerFields?.['reasoning_content'], '先想想雨夜的气氛。', 'the reasoning is kept on the entry as before');
      assert.equal(story.stream, undefined, 'after the turn there is no streaming block');
    });

    it('each model step has its own reasoning and its own start time', async () => {
      const seen = watchStream();
      server().enqueue(
        { reasoning: '第一步的想法。', toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content: '\n一。\n' }) }] },
        { reasoning: ['第二步', '的想法。'], text: '写好了。', delayMs: 30 },
      );
      const result = await story.send('写第一段。');
      await story.idle();
      assert.equal(result?.status, 'done');
      const views = seen.map((s) => s.view).filter((v): v is StreamView => v !== undefined);
      const first = views.filter((v) => v.reasoning?.includes('第一步'));
      const second = views.filter((v) => v.reasoning?.includes('第二步'));
      assert.ok(first.length > 0 && second.length > 0);
      assert.ok(second.every((v) => !v.reasoning?.includes('第一步')), 'the second step starts with no reasoning of the first');
      assert.equal(second.at(-1)?.reasoning, '第二步的想法。');
      assert.ok(second[0]!.since! >= first[0]!.since!, 'the second wait starts after the first');
      // When each step began (phase writing), its block had a start time and no reasoning yet.
      const writing = seen.filter((s) => s.change === 'phase' && s.phase === 'writing');
      assert.equal(writing.length, 2, 'two model steps');
      assert.ok(writing.every((s) => s.view?.since !== undefined && s.view.since <= s.at && s.view.reasoning === undefined));
      assert.equal(writing[1]!.view!.since, second[0]!.since, 'the second step\'s pieces count from its own start');
    });
  });

  describe('an instruction sent while the scribe finishes', () => {
    /** Turn 1 done, its scribe still at work for `ms`. */
    async function scribing(ms = 600): Promise<void> {
      scribeDelayMs = ms;
      scriptTurn('\n一。\n');
      assert.equal((await story.send('第一回'))?.status, 'done');
      assert.equal(story.scribe.running, true);
    }
    const instructions = () => book.session.path().filter((e) => e.type === 'user').map((e) => (e as UserEntry).text);

    it('is pending from Send until its instruction is appended, with a redraw at both edges', async () => {
      await scribing();
      const redraws: { pending: string | undefined; written: boolean }[] = [];
      host.watch = (e) => {
        if (e.kind === 'live' && e.change === 'render') redraws.push({ pending: story.pending?.text, written: instructions().includes('第二回') });
      };
      scriptTurn('\n二。\n');
      const t0 = Date.now();
      const second = story.send('第二回');
      assert.equal(story.pending?.text, '第二回', 'pending at once');
      assert.ok(story.pending!.since >= t0 && story.pending!.since <= Date.now());
      assert.deepEqual(instructions(), ['第一回'], 'not in the session yet');
      await until(() => story.phase === 'scribe' && story.busy);
      assert.equal(story.pending?.text, '第二回', 'still pending while the runner waits for the scribe');
      assert.equal(story.stream, undefined, 'no empty streaming block while it waits: nothing is being written');
      assert.equal((await second)?.status, 'done');
      await story.idle();
      assert.equal(story.pending, undefined);
      assert.deepEqual(instructions(), ['第一回', '第二回']);
      assert.ok(redraws.every((r) => !(r.pending && r.written)), 'never pending and in the chat at once');
      const shown = redraws.findIndex((r) => r.pending === '第二回');
      const gone = redraws.findIndex((r) => r.written);
      assert.ok(shown >= 0 && gone > shown, `a redraw showed it pending, then one showed it written: ${JSON.stringify(redraws)}`);
      assert.equal(redraws[gone - 1]?.pending, '第二回', 'it was pending up to the redraw that shows it written');
      const entries = await onDisk();
      const state = entries.findIndex((e) => e.type === 'state');
      assert.ok(state >= 0 && state < entries.findIndex((e) => e.type === 'user' && e.text === '第二回'), 'the scribe\'s state came first');
    });

    for (const when of ['at once', 'while the runner waits for the scribe'] as const) {
      it(`Cancel ${when}: nothing is appended, no request, the send settles undefined`, async () => {
        await scribing();
        const sent = agentRequests().length;
        host.all.length = 0;
        const second = story.send('第二回');
        if (when !== 'at once') await until(() => story.busy && story.phase === 'scribe');
        assert.equal(story.cancelPending(), true);
        assert.equal(story.pending, undefined, 'gone at once');
        assert.equal(await second, undefined);
        assert.equal(story.cancelPending(), false, 'nothing waits any more');
        await story.idle();
        assert.deepEqual(instructions(), ['第一回']);
        assert.equal(agentRequests().length, sent, 'the model was never asked');
        assert.equal(story.notice, undefined, 'nothing to say: nothing happened');
        assert.deepEqual(host.turnEvents().filter((e) => e.startsWith('turnEnded')), [], 'no turn ended');
        assert.equal(host.turnEvents().at(-1), 'scribe:applied', 'turn 1\'s scribe finished as usual');
        assert.deepEqual(types(await onDisk()).slice(-2), ['checkpoint', 'state'], 'the session ends with turn 1');
        assert.equal(story.busy, false);
        // And the next Send goes through as usual.
        await turn('第二回，再来', '\n二。\n');
        assert.deepEqual(instructions(), ['第一回', '第二回，再来']);
      });
    }

    it('Cancel while Send pins the hand edits (no scribe running): the instruction is still not written', async () => {
      await turn('第一回', '\n一。\n');
      const sent = agentRequests().length;
      let release!: () => void;
      let pinning = false;
      host.beforeSave = () => {
        pinning = true;
        return new Promise<void>((r) => (release = r));
      };
      const second = story.send('第二回');
      await until(() => pinning);
      assert.equal(story.pending?.text, '第二回');
      assert.equal(story.cancelPending(), true);
      release();
      assert.equal(await second, undefined);
      await story.idle();
      assert.deepEqual(instructions(), ['第一回']);
      assert.equal(agentRequests().length, sent);
      assert.deepEqual(types(await onDisk()).slice(-2), ['checkpoint', 'state'], 'the session ends with turn 1: no stopped reply either');
      assert.equal(story.busy, false);
    });

    it('Stop while it waits cancels it; a second Send while one waits is refused as waiting', async () => {
      await scribing();
      const second = story.send('第二回');
      await until(() => story.busy);
      assert.equal(await story.send('第三回'), undefined);
      assert.deepEqual(host.events.at(-1), { kind: 'instructionWaiting' });
      assert.equal(story.pending?.text, '第二回', 'the first one still waits');
      assert.equal(story.stop(), true);
      assert.equal(await second, undefined);
      assert.equal(story.pending, undefined);
      await story.idle();
      assert.deepEqual(instructions(), ['第一回']);
      assert.equal(story.stop(), false, 'nothing left to stop');
    });
  });

  describe('busy', () => {
    it('send, regenerate, retry and edit are refused while a turn writes, and nothing is written', async () => {
      await turn('第一回', '\n一。\n');
      const held = await hold();
      const count = book.session.entryCount;
      const sent = server().chatRequests().length;
      host.events.length = 0;
      const user1 = messages().find((m) => m.role === 'user')!;
      assert.equal(await story.send('又一回'), undefined);
      assert.equal(await story.regenerate(), undefined);
      assert.equal(await story.retry(), undefined);
      assert.equal(await story.editAsNewBranch(user1.id, '改'), undefined);
      assert.deepEqual(host.events, [
        { kind: 'busyVerb', verb: 'send a message' },
        { kind: 'busyVerb', verb: 'regenerate' },
        { kind: 'busyVerb', verb: 'retry' },
        { kind: 'busyVerb', verb: 'edit' },
      ]);
      assert.equal(book.session.entryCount, count);
      assert.equal(server().chatRequests().length, sent);
      assert.equal(story.busy, true, 'the held turn still writes');
      assert.equal(story.notice, undefined);
      const stopped = await held.release();
      assert.equal(stopped?.status, 'aborted');
    });

    // BUG (src/story/turns.ts, runTurn): a refused verb still runs runTurn's set-up and tear-down,
    // `this.streamValue = { text: '', tools: [] }` then `finally { this.streamValue = undefined }`,
    // so a click on Send while the agent streams wipes the running turn's streamed text from the
    // Chat (the next delta starts a new block from nothing). The old shell did the same. A fix:
    // leave the stream alone when the runner refuses (TurnBusyError), e.g. only reset it once the
    // turn has started, or restore the previous value on refusal.
    it('a refused send leaves the running turn\'s streamed text alone', async () => {
      server().enqueue({ text: ['第一句。', '第二句。'], chunkDelayMs: 400 });
      const running = story.send('慢慢写。');
      await until(() => story.stream?.text.includes('第一句') === true);
      assert.equal(await story.send('又一回'), undefined);
      assert.deepEqual(host.events.at(-1), { kind: 'busyVerb', verb: 'send a message' });
      assert.ok(story.stream?.text.includes('第一句'), `the stream shows ${JSON.stringify(story.stream)}`);
      story.stop();
      await running;
    });

    it('dispose() stops a turn that is writing', async () => {
      const held = await hold();
      const t0 = Date.now();
      story.dispose();
      const result = await held.turn;
      assert.equal(result?.status, 'aborted');
      assert.ok(Date.now() - t0 < 5000);
      assert.equal(story.busy, false);
      const entries = await onDisk();
      assert.equal(lastOf(entries, 'assistant').finish, 'aborted');
    });
  });
});

/** The in-story time a stored state entry records (the state module owns the shape: read, not trusted). */
function timeOf(entry: StateEntry): unknown {
  return (entry.state as { time?: unknown }).time;
}

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
