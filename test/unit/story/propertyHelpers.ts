// The scripted model and the store readers of the Story property (story.property.test.ts). One
// model server serves every sequence: the agent answers a turn with an append_file call adding a
// marker line to the chapter, then a short text; the scribe moves the scene's time to a new value;
// the summariser writes the five sections. Every instruction, reply, marker and edit carries a
// token «…» unique in the run, so a request can be searched for words it must not contain.
import { execFileSync } from 'node:child_process';
import type { ShadowRepo } from '../../../src/checkpoints';
import type { WorldlineSettings } from '../../../src/model/settings';
import type { ModelServer, RecordedRequest, ScriptedReplySpec } from '../../fixtures/modelServer';
import { CHAPTER, FakeHost } from './helpers';

export const isScribe = (r: RecordedRequest): boolean => (r.system ?? '').includes('你是场记') || (r.system ?? '').includes('You are the scribe');
export const isSummariser = (r: RecordedRequest): boolean => (r.system ?? '').includes('摘要员') || (r.system ?? '').includes('summariser');
export const isChat = (r: RecordedRequest): boolean => r.path === '/v1/chat/completions';
export const isAgent = (r: RecordedRequest): boolean => isChat(r) && !isScribe(r) && !isSummariser(r);

/** How the agent answers the next turn; `fail`: every attempt of that request gets a 500. */
export interface TurnPlan {
  reply: 'tool' | 'text' | 'both';
  fail?: 'first' | 'second';
}

const FILLER = '雨打在客栈的瓦上，灯影摇晃，楼下有人低声说话，酒气和潮气混在一起。';

/** Chinese filler of about `chars` characters, so the summaries have enough text to be due. */
export function filler(chars: number): string {
  return FILLER.repeat(Math.ceil(chars / FILLER.length)).slice(0, chars);
}

const TOKEN = /«[A-Z][0-9]+-[0-9]+»/g;

export function tokensIn(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

export class ScriptedModel {
  private seq = 0;
  private n = 0;
  plan: TurnPlan = { reply: 'tool' };
  /** Every token handed out in this sequence (instructions, replies, markers, edits). */
  readonly tokens = new Set<string>();
  /** What append_file calls added during the current step, in order. */
  prose: string[] = [];
  /** The times the scribe set during the current step. */
  scribeTimes: string[] = [];
  summaries = 0;

  install(server: ModelServer): void {
    server.route(isScribe, () => this.scribe(), 'scribe');
    server.route(isSummariser, () => this.summary(), 'summariser');
    server.setDefault((req) => this.agent(req));
  }

  startSequence(seq: number): void {
    this.seq = seq;
    this.n = 0;
    this.tokens.clear();
    this.plan = { reply: 'tool' };
  }

  startStep(plan: TurnPlan = { reply: 'tool' }): void {
    this.plan = plan;
    this.prose = [];
    this.scribeTimes = [];
  }

  token(kind: 'I' | 'R' | 'P' | 'E'): string {
    const t = `«${kind}${this.seq}-${++this.n}»`;
    this.tokens.add(t);
    return t;
  }

  private agent(req: RecordedRequest): ScriptedReplySpec {
    const afterTool = req.messages?.at(-1)?.role === 'tool';
    const stage = afterTool ? 'second' : 'first';
    // retry-after-ms keeps the client's three attempts at a 5xx quick.
    if (this.plan.fail === stage) return { status: 500, headers: { 'retry-after-ms': '1' } };
    if (afterTool || this.plan.reply === 'text') return { text: `${this.token('R')} 写好了。` };
    const content = `${this.token('P')} ${filler(700)}\n`;
    this.prose.push(content);
    const call = { name: 'append_file', arguments: JSON.stringify({ path: CHAPTER, content }) };
    return this.plan.reply === 'both' ? { text: `${this.token('R')} 先写一段。`, toolCalls: [call] } : { toolCalls: [call] };
  }

  private scribe(): ScriptedReplySpec {
    const time = `T${this.seq}-${++this.n}`;
    this.scribeTimes.push(time);
    return { text: JSON.stringify({ patch: { time } }) };
  }

  private summary(): ScriptedReplySpec {
    this.summaries++;
    return { text: ['## 前情提要', `第 ${this.summaries} 份摘要。`, '## 人物', '青梧。', '## 承诺与伏笔', '无。', '## 事实账', '无。', '## 当前场景', '客栈。'].join('\n') };
  }
}

/** The test host with memory settings low enough for summaries in a short story. */
export class PropertyHost extends FakeHost {
  override settings(): WorldlineSettings {
    const s = super.settings();
    return { ...s, memory: { ...s.memory, everyTurns: 2, keepTurns: 1 } };
  }
}

/** The store's safety refs (the manuscript as it was before each restore), oldest first. */
export function safetyRefs(repo: ShadowRepo): { ref: string; commit: string }[] {
  const out = execFileSync('git', ['--git-dir', repo.gitDir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/worldline/safety'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [ref, commit] = l.trim().split(' ') as [string, string];
      return { ref, commit, stamp: Number(ref.slice(ref.lastIndexOf('/') + 1)) };
    })
    .sort((a, b) => a.stamp - b.stamp)
    .map(({ ref, commit }) => ({ ref, commit }));
}

/** The chapter's text at each commit, read from the store in one `git cat-file --batch`. */
export function chapterAt(repo: ShadowRepo, commits: readonly string[]): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  if (commits.length === 0) return out;
  const raw = execFileSync('git', ['--git-dir', repo.gitDir, 'cat-file', '--batch'], { input: commits.map((c) => `${c}:${CHAPTER}\n`).join('') });
  let at = 0;
  for (const commit of commits) {
    const eol = raw.indexOf(0x0a, at);
    const header = raw.subarray(at, eol).toString('utf8');
    at = eol + 1;
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(header);
    if (!m) {
      out.set(commit, undefined); // "<name> missing"
      continue;
    }
    const size = Number(m[1]);
    out.set(commit, raw.subarray(at, at + size).toString('utf8'));
    at += size + 1;
  }
  return out;
}
