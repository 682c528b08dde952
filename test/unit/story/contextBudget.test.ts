// The context budget and the failure codes through the Story, over a real folder, a real
// checkpoint store, a real session file and the local model server (agent, scribe and summariser
// are real HTTP requests):
//  - pressure: when the provider's reported tokens reach 80% of the context window, the
//    automatic summary runs after the turn, and not a token below;
//  - a "context too long" 400: the older turns are summarised, the instruction goes again under
//    the summary, once: it then succeeds (with an info notice), or stops with the worded notice;
//    with nothing to summarise the failed turn stays as it was, Retry offered;
//  - every failure reaches the notice, the scribe's status and Compact Now as a code the shell words.
import { strict as assert } from 'node:assert';
import type { TurnResult } from '../../../src/agent/turnTypes';
import type { MemorySettings, WorldlineSettings } from '../../../src/model/settings';
import type { AssistantEntry, ChainEntry, SummaryEntry, UserEntry } from '../../../src/session/entries';
import { Story, type StoryEvent } from '../../../src/story';
import { eventWords, noticeWords, sayWords, scribeStatusWords } from '../../../src/story/words';
import { bySystemPrompt, type RecordedRequest, type RouteHandle, type ScriptedReplySpec } from '../../fixtures/modelServer';
import { until } from '../agent/turnHelpers';
import { CHAPTER, FakeHost, openStoryFixture, type Book, type StoryFixture } from './helpers';
import { bundle, en, zh } from '../fixtures/translation';

const SCRIBE_MARK = '你是场记';
const SUMMARY_MARK = '摘要员';
const SUMMARY = '## 前情提要\n青梧收留了林砚。\n## 人物\n青梧：客栈掌柜。\n## 承诺与伏笔\n无。\n## 事实账\n银镯在青梧手里。\n## 当前场景\n客栈大堂，雨夜。';
const PROSE = '夜色沉沉，檐下的灯笼晃个不停，远处偶尔传来更夫的梆子声，雨水顺着瓦檐一串串落下。'.repeat(14);
const OVERFLOW: ScriptedReplySpec = {
  status: 400,
  errorBody: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens. Please reduce the length of the messages.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } },
};
/** English as VS Code shows it without a bundle, and Chinese through the bundle ({n} filled). */

class BudgetHost extends FakeHost {
  readonly all: StoryEvent[] = [];
  contextWindow = 0;
  /** Two kept turns (one under pressure); no recall, so a request shows exactly what the context holds. */
  memory: Partial<MemorySettings> = { keepTurns: 2, recallCount: 0 };
  override settings(): WorldlineSettings {
    const s = super.settings();
    return { ...s, contextWindow: this.contextWindow, memory: { ...s.memory, ...this.memory } };
  }
  override report(event: StoryEvent): void {
    this.all.push(event);
    super.report(event);
  }
}

describe('Story: the context budget and failures in the novelist\'s words', function () {
  this.timeout(30000);
  let fixture: StoryFixture;
  let book: Book;
  let host: BudgetHost;
  let story: Story;
  let scribe: RouteHandle;
  let summary: RouteHandle;

  beforeEach(async () => {
    fixture = await openStoryFixture('ask');
    book = fixture.book;
    fixture.story.dispose();
    host = new BudgetHost(book, fixture.server);
    story = new Story(host, book.session);
    let nights = 0;
    scribe = fixture.server.route(bySystemPrompt(SCRIBE_MARK), (): ScriptedReplySpec => ({ text: JSON.stringify({ patch: { time: `第${++nights}夜` } }) }), 'scribe');
    summary = fixture.server.route(bySystemPrompt(SUMMARY_MARK), { text: SUMMARY }, 'summary');
  });
  afterEach(async () => {
    story.dispose();
    await fixture.close();
  });

  const server = () => fixture.server;
  const agentRequests = (): RecordedRequest[] => server().chatRequests().filter((r) => r.route === 'default');
  const routed = (name: string): RecordedRequest[] => server().chatRequests().filter((r) => r.route === name);
  const usage = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion });
  const summaries = (): SummaryEntry[] => book.session.path().filter((e): e is SummaryEntry => e.type === 'summary');

  /** The agent's next turn: append `prose` to the chapter, then a reply whose reported usage is `final`. */
  function script(final = usage(300, 20), prose = PROSE): void {
    server().enqueue(
      { toolCalls: [{ name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content: `\n${prose}\n` }) }], usage: usage(250, 40) },
      { text: '写好了。', usage: final },
    );
  }

  async function turn(instruction: string, final?: ReturnType<typeof usage>): Promise<TurnResult> {
    script(final);
    const result = await story.send(instruction);
    await story.idle();
    assert.equal(result?.status, 'done', `"${instruction}" ended ${result?.status}: ${result?.error ?? ''}`);
    return result;
  }

  describe('pressure', () => {
    it('at 80% of the window the older turns are summarised after the turn, half the kept turns with them', async () => {
      host.contextWindow = 10_000;
      await turn('第一回');
      await turn('第二回');
      assert.equal(summaries().length, 0, 'far from the window: no summary');
      await turn('第三回', usage(7_990, 10)); // next request ≥ 8,000 of 10,000
      assert.equal(routed('summary').length, 1, 'one summary call');
      const [s] = summaries();
      assert.ok(s, 'the summary is on the branch');
      assert.equal(book.session.path().at(-1)?.id, s.id, 'after the turn, its scribe and checkpoint');
      // keepTurns 2 → under pressure 1 kept: the first two turns are covered, the third stays verbatim.
      const third = book.session.path().find((e) => e.type === 'user' && book.session.textOf(e.id) === '第三回');
      const covered = book.session.get(s.coversThroughId) as ChainEntry;
      assert.ok(third && book.session.isAncestorOrSelf(covered.id, third.id) && covered.id !== third.id);
      assert.ok(host.logged.some((l) => /summary \(context 80% full\): applied/.test(l)), host.logged.join('\n'));
    });

    it('one token below 80% nothing is summarised', async () => {
      host.contextWindow = 10_000;
      await turn('第一回');
      await turn('第二回');
      await turn('第三回', usage(7_989, 10));
      assert.equal(routed('summary').length, 0);
      assert.equal(summaries().length, 0);
    });

    it('without a known window there is no pressure, whatever the usage', async () => {
      await turn('第一回');
      await turn('第二回');
      await turn('第三回', usage(9_000_000, 10));
      assert.equal(routed('summary').length, 0);
    });
  });

  describe('a context-length refusal', () => {
    it('summarises the older turns, sends the instruction again under the summary, and succeeds with an info notice', async () => {
      await turn('第一回');
      await turn('第二回');
      await turn('第三回');
      const asked = agentRequests().length;
      server().enqueue(OVERFLOW, { text: '第四回写好了。' });
      const result = await story.send('第四回');
      await story.idle();
      assert.equal(result?.status, 'done', result?.error);
      assert.equal(agentRequests().length - asked, 2, 'the refused request and one more');
      assert.equal(routed('summary').length, 1);
      assert.deepEqual(story.notice, { kind: 'compacted' });
      assert.ok(bundle[noticeWords(story.notice!).text.message]);

      const pathNow = book.session.path();
      const s = summaries()[0]!;
      const again = pathNow.find((e) => e.type === 'user' && e.parentId === s.id) as UserEntry;
      assert.equal(again.text, '第四回', 'the same instruction, under the summary');
      // The refused attempt stays in the tree, beside the summary, with its error.
      const refused = book.session.entries().find((e): e is UserEntry => e.type === 'user' && e.id !== again.id && e.text === '第四回')!;
      assert.equal(refused.parentId, s.parentId);
      const error = book.session.entries().find((e): e is AssistantEntry => e.type === 'assistant' && e.parentId === refused.id)!;
      assert.equal(error.finish, 'error');
      assert.ok(!pathNow.some((e) => e.id === refused.id), 'but not on the branch');
      // The second request carries the summary and not the covered turns.
      const second = JSON.stringify(agentRequests().at(-1)?.messages);
      assert.ok(second.includes('青梧收留了林砚'), 'the summary is in the request');
      assert.ok(!second.includes('第一回'), 'the covered instruction is not');
      assert.ok(second.includes('第三回') && second.includes('第四回'));
      assert.equal(host.all.filter((e) => e.kind === 'turnEnded').length, 4, 'one turn end for the send, not two');
    });

    it('refused again after the summary: stops, with the worded notice and the window, never a generic "check the model name"', async () => {
      host.contextWindow = 50_000;
      await turn('第一回');
      await turn('第二回');
      await turn('第三回');
      const asked = agentRequests().length;
      server().enqueue(OVERFLOW, OVERFLOW);
      const result = await story.send('第四回');
      assert.equal(result?.status, 'error');
      assert.equal(agentRequests().length - asked, 2, 'retried once, not more');
      const notice = story.notice;
      assert.ok(notice?.kind === 'failed');
      assert.equal(notice.problem?.code, 'contextLength');
      assert.equal(notice.recovery, 'retried');
      assert.equal(notice.contextWindow, 50_000);
      const words = noticeWords(notice);
      assert.equal(words.action, 'retry');
      const english = sayWords(words, en);
      assert.match(english, /still longer than the model's context window/);
      assert.match(english, /50,000 tokens/);
      assert.match(english, /maximum context length is 8192/, 'the provider\'s words as the detail');
      assert.doesNotMatch(english, /model name/i);
      const chinese = sayWords(words, zh);
      assert.match(chinese, /上下文窗口/);
      assert.match(chinese, /50,000/);
    });

    it('with nothing to summarise: no summary, the failed turn stays where it was, Retry offered', async () => {
      server().enqueue(OVERFLOW);
      const result = await story.send('第一回');
      assert.equal(result?.status, 'error');
      assert.equal(routed('summary').length, 0);
      assert.equal(agentRequests().length, 1);
      const notice = story.notice;
      assert.ok(notice?.kind === 'failed' && notice.recovery === 'notCompacted' && notice.problem?.code === 'contextLength');
      const last = book.session.path().at(-1) as AssistantEntry;
      assert.equal(last.type, 'assistant');
      assert.equal(last.finish, 'error');
      assert.equal(story.canRetry, true);
      assert.match(sayWords(noticeWords(notice), en), /no older turns could be summarised/);
    });
  });

  describe('failure codes', () => {
    it('the notice words the code in both languages, Set API Key after an auth failure', async () => {
      const cases: [ScriptedReplySpec, string, 'setKey' | 'retry'][] = [
        // The test host sets no key: a 401 then means none is set for the endpoint.
        [{ status: 401, errorBody: { error: { message: 'Incorrect API key provided' } } }, 'No API key is set for', 'setKey'],
        [{ status: 402, errorBody: { error: { message: 'Insufficient Balance' } } }, 'run out of balance', 'retry'],
        [{ status: 400, errorBody: { error: { message: 'Unknown field: frobnicate' } } }, 'refused the request (400)', 'retry'],
      ];
      for (const [reply, words, action] of cases) {
        server().enqueue(reply);
        const result = await story.send('写一段。');
        assert.equal(result?.status, 'error');
        const notice = story.notice!;
        assert.ok(notice.kind === 'failed' && notice.problem, JSON.stringify(notice));
        const w = noticeWords(notice);
        assert.equal(w.action, action);
        assert.match(sayWords(w, en), new RegExp(words.replace(/[()]/g, '\\$&')));
        assert.ok(!/[a-z]{4,}/i.test(sayWords({ text: w.text, ...(w.more ? { more: w.more } : {}) }, zh).replace(/API|Worldline|Set API Key|Base URL|127\.0\.0\.1:\d+/g, '')), `zh words have no English left: ${sayWords(w, zh)}`);
      }
    });

    it('a failed scribe call reaches the Scene State view as a code, worded', async () => {
      scribe.enqueue({ status: 402, errorBody: { error: { message: 'Insufficient Balance' } } });
      script();
      await story.send('第一回');
      await story.idle();
      await until(() => host.all.some((e) => e.kind === 'scribe' && e.status.last?.kind === 'failed'));
      const event = host.all.find((e): e is Extract<StoryEvent, { kind: 'scribe' }> => e.kind === 'scribe' && e.status.last?.kind === 'failed')!;
      assert.deepEqual(event.problem?.stage, 'model');
      assert.equal(event.problem?.model?.code, 'insufficientBalance');
      assert.match(event.status.last?.error ?? '', /Insufficient Balance/, 'the status keeps the English log line');
      const shown = scribeStatusWords(event.status, event.problem, zh);
      assert.match(shown.last?.error ?? '', /场记没能更新场景状态/);
      assert.match(shown.last?.error ?? '', /余额已用完/);
    });

    it('Compact Now with a failing summariser reports the code', async () => {
      host.memory = { keepTurns: 1, recallCount: 0 };
      await turn('第一回');
      await turn('第二回');
      summary.enqueue({ status: 402, errorBody: { error: { message: 'Insufficient Balance' } } });
      const outcome = await story.compactNow();
      assert.equal(outcome?.kind, 'failed');
      const event = host.all.find((e): e is Extract<StoryEvent, { kind: 'compacted' }> => e.kind === 'compacted')!;
      assert.equal(event.problem?.code, 'insufficientBalance');
      const w = eventWords(event, 'zh')!;
      assert.match(sayWords(w, zh), /摘要没有写入.*余额已用完/);
    });
  });
});
