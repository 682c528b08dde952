// Property: whatever a real session tree holds (regenerated and branched turns, hidden and edited
// messages, stopped and failed turns with and without dangling tool calls, summaries), the request
// built for a new instruction, and for the next step of its tool loop, is one a strict endpoint
// accepts; it carries every visible text in order and no hidden or covered one; the turn's block
// is right in front of the newest instruction, and every earlier instruction after the summary
// carries the block it was sent with (the full state before it, or the changes since the one
// before), the ones before it none.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import fc from 'fast-check';
import { buildRequest, replay } from '../../../src/agent/prompt';
import { FULL_EVERY, instructionsBeforeSummary, SentBlocks, type BlockSettings } from '../../../src/agent/sentBlocks';
import { cutOffText, notRunText } from '../../../src/agent/requestShape';
import type { OpenAIMessage } from '../../../src/model/streaming';
import type { AssistantEntry, ChainEntry, NewChainEntry, ToolCall } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { formatState } from '../../../src/state/format';
import { formatChanges } from '../../../src/state/formatChanges';
import { withBlock } from '../../../src/state/inject';
import { openingState } from '../../../src/state/opening';
import { stateAt } from '../../../src/state/stateAt';
import { runs } from '../long-mode';
import { assistant, removeTempDirs, tempDir, tool, user } from '../session/helpers';
import { shapeProblem } from './strictShape';

const BLOCK = '【世界状态】\n时间：傍晚\n地点：茶馆';
/** The earlier instructions' blocks come from real states; their opening differs from BLOCK. */
const PAST: BlockSettings = { opening: { time: '清晨', location: '渡口' }, lang: 'zh', budget: 400 };
/** Opens a full block, a change block and the no-change line alike. */
const HEADING = '【世界状态';
const TOKEN = /⟦\d+⟧/g;
const TURN_NOT_RUN = '未执行：作者停止了这一轮。'; // what turn.ts records for calls skipped after a stop

const REPLY_KINDS = ['text', 'tools', 'stopThinking', 'stopText', 'stopMidTool', 'stopDangling', 'failText', 'failCalls', 'failMidTool'] as const;
type ReplyKind = (typeof REPLY_KINDS)[number];
interface Reply {
  kind: ReplyKind;
  calls: number;
  answered: number;
  steps: number;
  withText: boolean;
  /** Ids like "call_0" in every reply, as some local servers send them. */
  reuseIds: boolean;
  bookkeeping: boolean;
}
type Op =
  | { op: 'turn'; reply: Reply }
  | { op: 'regenerate'; at: number; reply: Reply }
  | { op: 'branchHere'; at: number; reply: Reply }
  | { op: 'summary'; at: number };
type SideOp = { target: number; action: 'hide' | 'hideUnhide' | 'editEmpty' | 'editText' };

const replyArb: fc.Arbitrary<Reply> = fc.record({
  kind: fc.constantFrom(...REPLY_KINDS),
  calls: fc.integer({ min: 1, max: 3 }),
  answered: fc.integer({ min: 0, max: 3 }),
  steps: fc.integer({ min: 1, max: 2 }),
  withText: fc.boolean(),
  reuseIds: fc.boolean(),
  bookkeeping: fc.boolean(),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: replyArb.map((reply): Op => ({ op: 'turn', reply })) },
  { weight: 2, arbitrary: fc.record({ at: fc.nat(), reply: replyArb }).map((r): Op => ({ op: 'regenerate', ...r })) },
  { weight: 1, arbitrary: fc.record({ at: fc.integer({ min: -1, max: 60 }), reply: replyArb }).map((r): Op => ({ op: 'branchHere', ...r })) },
  { weight: 1, arbitrary: fc.nat().map((at): Op => ({ op: 'summary', at })) },
);
const sideArb: fc.Arbitrary<SideOp> = fc.record({ target: fc.nat(), action: fc.constantFrom('hide', 'hideUnhide', 'editEmpty', 'editText') });
const noiseArb = fc.array(fc.constantFrom('', ' ', '\n', '雨夜', '"引号"', '\\', '{"a":1}', '【旁白】', '  \n', 'tool_calls'), { minLength: 1, maxLength: 6 });

/** Builds the tree in a real session file; every text holds one unique token. */
class Builder {
  private n = 0;
  constructor(readonly session: Session, private readonly noise: readonly string[]) {}

  text(): string {
    const i = this.n++;
    const at = (k: number) => this.noise[k % this.noise.length] ?? '';
    return `${at(i)}⟦${i}⟧${at(i + 1)}`;
  }

  append(e: NewChainEntry): Promise<ChainEntry> {
    return this.session.append(e);
  }

  async reply(r: Reply): Promise<void> {
    const words = () => (r.withText ? this.text() : '');
    const calls = (): ToolCall[] =>
      Array.from({ length: r.calls }, (_, k) => ({ id: r.reuseIds ? `call_${k}` : `c${this.n++}`, name: 'read_file', arguments: k === 2 ? '{"path": "a.md", "cut' : '{"path":"a.md"}' }));
    const results = async (cs: ToolCall[], count: number) => {
      for (const c of cs.slice(0, count)) await this.append(tool(c.id, this.text(), c.name));
    };
    const partial = Math.min(r.answered, r.calls - 1); // fewer results than calls
    switch (r.kind) {
      case 'text':
        await this.append(assistant(this.text()));
        break;
      case 'tools':
        for (let s = 0; s < r.steps; s++) {
          const cs = calls();
          await this.append(assistant(words(), { toolCalls: cs }));
          await results(cs, cs.length);
        }
        await this.append(assistant(words()));
        break;
      case 'stopThinking':
        await this.append(assistant('', { finish: 'aborted' }));
        break;
      case 'stopText':
        await this.append(assistant(this.text(), { finish: 'aborted' }));
        break;
      case 'stopMidTool': {
        // What turn.ts writes: the calls, the results that ran, "not run" for the rest, then the stop.
        const cs = calls();
        await this.append(assistant(words(), { toolCalls: cs }));
        await results(cs, partial);
        for (const c of cs.slice(partial)) await this.append({ type: 'tool', callId: c.id, name: c.name, result: TURN_NOT_RUN, isError: true });
        await this.append(assistant(words(), { finish: 'aborted' }));
        break;
      }
      case 'stopDangling': {
        const cs = calls();
        await this.append(assistant(words(), { toolCalls: cs, finish: 'aborted' }));
        await results(cs, partial);
        break;
      }
      case 'failText':
        await this.append(assistant(words(), { finish: 'error', error: 'HTTP 500' }));
        break;
      case 'failCalls':
        await this.append(assistant(words(), { toolCalls: calls(), finish: 'error', error: 'malformed call' }));
        break;
      case 'failMidTool': {
        const cs = calls();
        await this.append(assistant(words(), { toolCalls: cs }));
        await results(cs, partial);
        await this.append(assistant('', { finish: 'error', error: 'The turn could not be saved' }));
        break;
      }
    }
    if (r.bookkeeping && (r.kind === 'text' || r.kind === 'tools')) {
      await this.append({ type: 'checkpoint', commit: 'abc', ref: 'refs/x', changed: [] });
      // Every third state is damaged: the block comes from the valid one above it, as stateAt picks.
      const state = this.n % 3 === 0 ? {} : openingState({ time: `第${this.n}刻`, location: '渡口' });
      await this.append({ type: 'state', state, by: 'scribe', warnings: [] });
    }
  }

  async run(op: Op): Promise<void> {
    const s = this.session;
    const p = s.path();
    if (op.op === 'turn') {
      await this.append(user(this.text()));
      await this.reply(op.reply);
    } else if (op.op === 'regenerate') {
      const users = p.filter((e) => e.type === 'user');
      if (users.length === 0) return;
      await s.navigate((users[op.at % users.length] as ChainEntry).id);
      await this.reply(op.reply);
    } else if (op.op === 'branchHere') {
      await s.navigate(op.at < 0 || p.length === 0 ? null : (p[op.at % p.length] as ChainEntry).id);
      await this.append(user(this.text()));
      await this.reply(op.reply);
    } else if (p.length > 0) {
      await this.append({ type: 'summary', text: this.text(), coversThroughId: (p[op.at % p.length] as ChainEntry).id });
    }
  }

  async side(op: SideOp): Promise<void> {
    const s = this.session;
    const all = s.entries().filter((e): e is ChainEntry => ['user', 'assistant', 'tool', 'summary', 'checkpoint', 'state'].includes(e.type));
    const target = all[op.target % all.length];
    if (!target) return;
    const textual = ['user', 'assistant', 'tool', 'summary'].includes(target.type);
    if (op.action === 'hide' || op.action === 'hideUnhide') {
      await s.appendSide({ type: 'hide', targetId: target.id, hidden: true });
      if (op.action === 'hideUnhide') await s.appendSide({ type: 'hide', targetId: target.id, hidden: false });
    } else if (textual) {
      await s.appendSide({ type: 'edit', targetId: target.id, text: op.action === 'editEmpty' ? '' : this.text() });
    }
  }
}

/** What the request must carry, worked out from the branch directly (not through context.ts). */
function oracle(s: Session): { tokens: string[]; summaryTokens: string[]; cutOffs: number; notRuns: number } {
  const p = s.path();
  const pos = new Map(p.map((e, i) => [e.id, i] as const));
  let first = 0;
  let summaryTokens: string[] = [];
  for (let i = p.length - 1; i >= 0; i--) {
    const e = p[i] as ChainEntry;
    const covered = e.type === 'summary' ? pos.get(e.coversThroughId) : undefined;
    if (e.type === 'summary' && !s.isHidden(e.id) && covered !== undefined) {
      first = covered + 1;
      summaryTokens = s.textOf(e.id).match(TOKEN) ?? [];
      break;
    }
  }
  const tokens: string[] = [];
  let cutOffs = 0;
  let notRuns = 0;
  /** The reply whose results follow (results always directly follow their call in these trees). */
  let owner: { entry: AssistantEntry; index: number; taken: Set<string> } | undefined;
  const resultsAfter = (i: number): ChainEntry[] => {
    const out: ChainEntry[] = [];
    for (let j = i + 1; j < p.length && (p[j] as ChainEntry).type === 'tool'; j++) out.push(p[j] as ChainEntry);
    return out;
  };
  for (let i = first; i < p.length; i++) {
    const e = p[i] as ChainEntry;
    if (e.type === 'assistant') owner = { entry: e, index: i, taken: new Set() };
    else if (e.type !== 'tool') owner = undefined;
    if (s.isHidden(e.id)) continue;
    const text = s.textOf(e.id);
    const mine = text.match(TOKEN) ?? [];
    if (e.type === 'user') tokens.push(...mine);
    if (e.type === 'assistant') {
      tokens.push(...mine);
      if (e.finish === 'aborted' && text.trim() !== '') cutOffs++;
      const results = resultsAfter(i);
      const seen = new Set<string>();
      for (const c of e.toolCalls ?? []) {
        if (seen.has(c.id)) continue;
        seen.add(c.id);
        if (!results.some((r) => r.type === 'tool' && r.callId === c.id)) notRuns++;
      }
    }
    if (e.type === 'tool' && owner && !s.isHidden(owner.entry.id) && !owner.taken.has(e.callId) && (owner.entry.toolCalls ?? []).some((c) => c.id === e.callId)) {
      owner.taken.add(e.callId);
      tokens.push(...mine);
    }
  }
  return { tokens, summaryTokens, cutOffs, notRuns };
}

function contentOf(m: OpenAIMessage): string {
  return typeof m.content === 'string' ? m.content : '';
}

/** The earlier instructions after the active summary, visible and not empty: they carry their blocks. */
function freshInstructions(s: Session): ChainEntry[] {
  const p = s.path();
  const pos = new Map(p.map((e, i) => [e.id, i] as const));
  let from = 0;
  for (let i = p.length - 1; i >= 0; i--) {
    const e = p[i] as ChainEntry;
    if (e.type === 'summary' && !s.isHidden(e.id) && pos.has(e.coversThroughId)) {
      from = i + 1;
      break;
    }
  }
  const users = p.filter((e, i) => e.type === 'user' && i >= from && !s.isHidden(e.id) && s.textOf(e.id).trim() !== '');
  return users.slice(0, -1); // the newest gets the turn's block
}

/** The request as turn.ts builds it for the current leaf, checked against the oracle. */
function check(s: Session, lang: 'zh' | 'en', newest: string, endsWith: 'user' | 'tool'): boolean {
  const view = s.contextWithSummary();
  const sent = new SentBlocks(s);
  const pastBlocks = sent.blocks(view.messages, instructionsBeforeSummary(s, view), PAST).past;
  const msgs = buildRequest({ summaryText: view.summaryText, context: view.messages, system: 'SYS', stateBlock: BLOCK, pastBlocks, lang });
  const dump = () => JSON.stringify(msgs, null, 1);
  assert.equal(shapeProblem(msgs), undefined, dump());
  assert.equal(msgs[msgs.length - 1]?.role, endsWith, dump());
  const want = oracle(s);
  assert.deepEqual(contentOf(msgs[0] as OpenAIMessage).match(TOKEN) ?? [], want.summaryTokens, 'the summary rides on the system prompt');
  const body = msgs.slice(1);
  assert.deepEqual(body.flatMap((m) => contentOf(m).match(TOKEN) ?? []), want.tokens, `visible texts in order, nothing hidden or covered\n${dump()}`);
  const users = body.filter((m) => m.role === 'user');
  const last = users[users.length - 1];
  assert.ok(last && contentOf(last).endsWith(`${BLOCK}\n\n${newest}`), 'the block sits right in front of the newest instruction');
  assert.equal(body.filter((m) => contentOf(m).includes(BLOCK)).length, 1, 'and nowhere else');
  assert.equal(contentOf(last).split(BLOCK).length, 2);
  // Each earlier instruction as it was sent: the block of the state before it (stateAt on its path).
  const fresh = freshInstructions(s);
  const userText = users.map(contentOf).join('\u0000');
  const stateOf = (id: string) => stateAt(s.path(id), PAST.opening, { lang: 'zh' }).state;
  fresh.forEach((u, j) => {
    // The full state on the first and every FULL_EVERY; else the changes since the one before, unless longer.
    const full = formatState(stateOf(u.id), { lang: 'zh', budget: PAST.budget as number });
    const prev = fresh[j - 1];
    const changes = j % FULL_EVERY === 0 || !prev ? undefined : formatChanges(stateOf(prev.id), stateOf(u.id), { lang: 'zh' });
    const block = changes !== undefined && changes.length < full.length ? changes : full;
    assert.ok(userText.includes(withBlock(block, s.textOf(u.id))), `instruction ${s.textOf(u.id)} carries its block\n${dump()}`);
  });
  const headings = body.reduce((n, m) => n + contentOf(m).split(HEADING).length - 1, 0);
  assert.equal(headings, fresh.length + 1, 'no block on an instruction before the summary, none in a reply or a result');
  const marker = cutOffText(lang);
  const marks = body.reduce((n, m) => n + (m.role === 'assistant' ? contentOf(m).split(marker).length - 1 : 0), 0);
  assert.equal(marks, want.cutOffs, 'stopped replies are marked cut off');
  assert.equal(body.filter((m) => m.role === 'tool' && m.content === notRunText(lang)).length, want.notRuns, 'calls without results answered "not run"');
  // Whether the branch, sent as it is, would have been refused (so the run tested something).
  return shapeProblem([{ role: 'system', content: 'SYS' }, ...replay(view.messages, lang)]) !== undefined;
}

describe('agent/requestShape property', () => {
  // Made when the suite runs, not when the file loads: other suites remove temp dirs after each test.
  let dir = '';
  before(() => { dir = tempDir('wl-shape-'); });
  after(removeTempDirs);

  let tried = 0;
  let raw400 = 0;
  it('random trees with hides, edits, stops, failures and summaries always give a well-formed request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 14 }),
        fc.array(sideArb, { maxLength: 12 }),
        fc.constantFrom('zh', 'en'),
        noiseArb,
        async (ops, sides, lang, noise) => {
          tried++;
          const session = await Session.create(path.join(dir, `s${tried}.jsonl`), { id: `s${tried}`, title: 't' });
          try {
            const b = new Builder(session, noise);
            for (const op of ops) await b.run(op);
            for (const side of sides) await b.side(side);
            // A new instruction, as the runner appends it; then the first step of its tool loop.
            const newest = b.text();
            await b.append(user(newest));
            if (check(session, lang, newest, 'user')) raw400++;
            const cs: ToolCall[] = [{ id: 'call_0', name: 'read_file', arguments: '{"path":"a.md"}' }];
            await b.append(assistant(b.text(), { toolCalls: cs }));
            await b.append(tool('call_0', b.text(), 'read_file'));
            check(session, lang, newest, 'tool');
          } finally {
            await session.close();
          }
        },
      ),
      { numRuns: runs(200, 2000) },
    );
    console.log(`      request shape over random trees: ${tried} tried, 0 failed; ${raw400} would have been refused unshaped`);
    assert.ok(raw400 > tried / 4, 'the trees often hold the shapes a strict endpoint refuses');
  });
});
