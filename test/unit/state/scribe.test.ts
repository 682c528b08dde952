// The scribe: prompt, parsing, and runScribe against the local model server over real HTTP.
import * as assert from 'node:assert/strict';
import { createChatClient } from '../../../src/model/chatClient';
import { applyPatch } from '../../../src/state/apply';
import { parseScribeOutput } from '../../../src/state/scribeParse';
import { buildScribePrompt, excerpt, ledgerJson, SCRIBE_ROSTER_NAMES } from '../../../src/state/scribePrompt';
import { runScribe, SCRIBE_MAX_TOKENS, type ScribeDeps, type ScribeInput } from '../../../src/state/scribeRun';
import type { SceneState } from '../../../src/state/types';
import { bySystemPrompt, startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { SEED_PATCH_1, seedOpening } from './helpers';

describe('state/buildScribePrompt', () => {
  const input = (over: Partial<ScribeInput> = {}): ScribeInput => ({
    state: applyPatch(seedOpening(), SEED_PATCH_1).state,
    warnings: [],
    instruction: '写林砚进门避雨',
    proseAdded: '雨越下越大，林砚推门进来。',
    reply: '我写了林砚进门的一段。',
    lang: 'zh',
    hasVariables: false,
    turnFinishedNormally: true,
    ...over,
  });

  it('system: field meanings and every rule; user: ledger, warnings, this turn', () => {
    const p = buildScribePrompt(input({ warnings: ['未知字段「mood」已整个拒收。'] }));
    for (const must of ['场记', 'location 和每个 at 里只用一种写法', 'at 写他去了哪里', '礼物被拒收，东西仍在原主手里', '小步变化', '新的承诺', '{"patch":{}}', '只输出一个 JSON']) {
      assert.ok(p.system.includes(must), must);
    }
    assert.ok(!p.system.includes('variables：本作定义的变量'), 'no variables section without variables');
    assert.ok(p.user.startsWith('【当前账本】\n{\n"time": "傍晚（雨中）"'));
    assert.ok(p.user.includes('【上次合并的告警】'));
    assert.ok(p.user.includes('- 未知字段「mood」已整个拒收。'));
    assert.ok(p.user.includes('【本轮】\n作者的指令：\n写林砚进门避雨'));
    assert.ok(p.user.includes('本轮写进稿子的正文：\n雨越下越大，林砚推门进来。'));
    assert.ok(p.user.includes('写作助手的回复：\n我写了林砚进门的一段。'));
    // The ledger's roster is names only (no times), leaves out who is already listed, and is valid JSON.
    const ledger = p.user.slice('【当前账本】\n'.length, p.user.indexOf('\n}\n') + 2);
    const parsed = JSON.parse(ledger) as { roster: { characters: string[] } };
    assert.deepEqual(parsed.roster.characters, []);
  });

  it('the roster part of the ledger is bounded: the newest names only, none listed twice', () => {
    const base = input({}).state;
    const state = structuredClone(base);
    for (let i = 0; i < 100; i++) state.roster.characters[`路人${i}`] = `第${i}天`;
    for (let i = 0; i < 100; i++) state.roster.locations[`地方${i}`] = `第${i}天`;
    const ledger = ledgerJson(state);
    const parsed = JSON.parse(ledger) as { roster: { characters: string[]; locations: string[] } };
    assert.equal(parsed.roster.characters.length, SCRIBE_ROSTER_NAMES);
    assert.equal(parsed.roster.characters.at(-1), '路人99');
    assert.ok(!parsed.roster.characters.includes('路人0'));
    assert.equal(parsed.roster.locations.length, SCRIBE_ROSTER_NAMES);
    for (const name of Object.keys(state.characters)) assert.ok(!parsed.roster.characters.includes(name));
  });

  it('the variables section appears only when the project defines variables', () => {
    const p = buildScribePrompt(input({ hasVariables: true }));
    assert.ok(p.system.includes('variables：本作定义的变量'));
    const en = buildScribePrompt(input({ hasVariables: true, lang: 'en' }));
    assert.ok(en.system.startsWith('You are the scribe.'));
    assert.ok(en.system.includes('Variables:'));
    assert.ok(en.user.startsWith('[Current ledger]'));
    assert.ok(en.user.includes('[This turn]'));
  });

  it('long prose keeps its head and tail; the prompt size is bounded', () => {
    const prose = '开头' + '中'.repeat(100_000) + '结尾';
    const p = buildScribePrompt(input({ proseAdded: prose }));
    assert.ok(p.user.includes('开头'));
    assert.ok(p.user.includes('结尾'));
    assert.ok(p.user.length < 25_000);
    assert.equal(excerpt('short', 100, 'zh'), 'short');
  });
});

describe('state/parseScribeOutput', () => {
  it('plain {"patch":…}', () => {
    assert.deepEqual(parseScribeOutput('{"patch":{"time":"夜"}}'), { ok: true, patch: { time: '夜' } });
  });
  it('code fences and prose around the JSON', () => {
    const text = '好的，本轮变化如下：\n```json\n{"patch": {"location": "渡口 {北}"}}\n```\n以上。';
    assert.deepEqual(parseScribeOutput(text), { ok: true, patch: { location: '渡口 {北}' } });
  });
  it('a bare patch, an empty patch, and patch:null', () => {
    assert.deepEqual(parseScribeOutput('{"items":["伞"]}'), { ok: true, patch: { items: ['伞'] } });
    assert.deepEqual(parseScribeOutput('{}'), { ok: true, patch: {} });
    assert.deepEqual(parseScribeOutput('{"patch":null}'), { ok: true, patch: {} });
  });
  it('skips braces that do not parse and inline thinking', () => {
    const text = '<think>maybe {"patch":{"time":"wrong"}}</think>I think {this} is it: {"patch":{"time":"right"}}';
    assert.deepEqual(parseScribeOutput(text), { ok: true, patch: { time: 'right' } });
    assert.deepEqual(parseScribeOutput('{ unclosed and then {"patch":{"time":"t"}}'), { ok: true, patch: { time: 't' } });
  });
  it('finds a patch nested in a wrapper object', () => {
    assert.deepEqual(parseScribeOutput('{"result":{"patch":{"time":"t"}}}'), { ok: true, patch: { time: 't' } });
  });
  it('garbage → an error, never a throw', () => {
    for (const t of ['', 'no json here', '{"answer": 42}', '[1,2]', '{'.repeat(10_000), '"{'.repeat(5000)]) {
      const r = parseScribeOutput(t);
      assert.equal(r.ok, false, t.slice(0, 20));
    }
  });
});

/** A tiny tree: parent links, a movable leaf, appends that extend the leaf like a real session. */
class FakeTree {
  parent = new Map<string, string | null>([['root', null]]);
  leaf: string | null = 'root';
  appended: { state: SceneState; by: string; warnings: string[] }[] = [];
  private n = 0;

  add(parentId: string | null): string {
    const id = `n${++this.n}`;
    this.parent.set(id, parentId);
    return id;
  }
  isAncestorOrSelf = (a: string | null, b: string | null): boolean => {
    for (let cur = b; cur !== null && cur !== undefined; cur = this.parent.get(cur) ?? null) if (cur === a) return true;
    return a === null;
  };
  deps(server: ModelServer, over: Partial<ScribeDeps> = {}): ScribeDeps {
    return {
      client: createChatClient({ baseURL: server.url, apiKey: 'sk-scribe', model: 'main-model', maxRetries: 0, timeoutMs: 5000 }),
      model: 'test-scribe',
      getLeafId: () => this.leaf,
      isAncestorOrSelf: this.isAncestorOrSelf,
      appendState: async (e) => {
        this.appended.push(e);
        this.leaf = this.add(this.leaf);
      },
      ...over,
    };
  }
}

describe('state/runScribe over HTTP', () => {
  let server: ModelServer;
  let tree: FakeTree;
  const input = (over: Partial<ScribeInput> = {}): ScribeInput => ({
    state: seedOpening(),
    warnings: [],
    instruction: '写林砚进门避雨',
    proseAdded: '雨越下越大，林砚推门进来，青梧把怀表收进袖中。',
    reply: '写好了。',
    lang: 'zh',
    hasVariables: false,
    turnFinishedNormally: true,
    ...over,
  });

  beforeEach(async () => {
    server = await startModelServer();
    tree = new FakeTree();
    // The turn so far: user → assistant → checkpoint; the leaf is the checkpoint.
    const u = tree.add('root');
    const a = tree.add(u);
    tree.leaf = tree.add(a);
  });
  afterEach(async () => {
    await server.close();
  });

  it('a good reply is merged and appended once; the call is the scribe call', async () => {
    const scribe = server.route(bySystemPrompt('你是场记'), undefined, 'scribe');
    scribe.enqueue({ text: JSON.stringify({ patch: SEED_PATCH_1 }) });
    const out = await runScribe(tree.deps(server), input());
    assert.equal(out.kind, 'applied');
    if (out.kind !== 'applied') return;
    assert.deepEqual(out.warnings, []);
    assert.equal(tree.appended.length, 1);
    assert.equal(tree.appended[0]?.by, 'scribe');
    assert.deepEqual(tree.appended[0]?.state, applyPatch(seedOpening(), SEED_PATCH_1).state);
    const req = server.chatRequests()[0];
    assert.equal(req?.route, 'scribe');
    assert.equal(req?.model, 'test-scribe');
    assert.equal(req?.maxTokens, SCRIBE_MAX_TOKENS);
    assert.equal(req?.messages?.length, 2);
    assert.ok(String(req?.messages?.[1]?.content).includes('【本轮】'));
  });

  it('warnings from the merge are returned and stored on the entry', async () => {
    server.enqueue({ text: '{"patch":{"characters":{"青梧":{"affinity":150}},"mood":"x","items":[42]}}' });
    const out = await runScribe(tree.deps(server), input());
    assert.equal(out.kind, 'applied');
    assert.equal(tree.appended[0]?.warnings.length, 3);
  });

  it('JSON inside prose and fences is still applied', async () => {
    server.enqueue({ text: '本轮记录如下：\n```json\n{"patch":{"time":"深夜"}}\n```\n完毕。' });
    const out = await runScribe(tree.deps(server), input());
    assert.equal(out.kind, 'applied');
    assert.equal(tree.appended[0]?.state.time, '深夜');
  });

  it('garbage → failed, raw text kept (truncated), nothing appended', async () => {
    server.enqueue({ text: '抱歉，我无法完成。' + '啊'.repeat(2000) });
    const out = await runScribe(tree.deps(server), input());
    assert.equal(out.kind, 'failed');
    if (out.kind !== 'failed') return;
    assert.equal(out.error.kind, 'parse');
    assert.ok(out.error.raw?.startsWith('抱歉，我无法完成。'));
    assert.ok((out.error.raw?.length ?? 0) <= 500);
    assert.equal(tree.appended.length, 0);
  });

  it('a 500 → failed (model, server), nothing appended', async () => {
    server.enqueue({ status: 500 });
    const out = await runScribe(tree.deps(server), input());
    assert.equal(out.kind, 'failed');
    if (out.kind !== 'failed') return;
    assert.equal(out.error.kind, 'model');
    assert.equal(out.error.modelErrorKind, 'server');
    assert.equal(tree.appended.length, 0);
  });

  it('slow reply after the leaf moved to ANOTHER branch → stale, nothing appended', async () => {
    const before = tree.leaf;
    server.enqueue((_req) => {
      // The novelist regenerates while the scribe thinks: the leaf jumps to a sibling branch.
      tree.leaf = tree.add('root');
      return { text: '{"patch":{"time":"深夜"}}', delayMs: 80 };
    });
    const out = await runScribe(tree.deps(server), input());
    assert.deepEqual(out, { kind: 'stale' });
    assert.equal(tree.appended.length, 0);
    assert.notEqual(tree.leaf, before);
  });

  it('slow reply after the leaf moved ALONG the same chain → applied', async () => {
    server.enqueue((_req) => {
      // Something else appended on this branch (a label, a model switch): not drift.
      tree.leaf = tree.add(tree.add(tree.leaf));
      return { text: '{"patch":{"time":"深夜"}}', delayMs: 80 };
    });
    const out = await runScribe(tree.deps(server), input());
    assert.equal(out.kind, 'applied');
    assert.equal(tree.appended.length, 1);
  });

  it('a state edited on the same chain during the call is kept when getCurrentState is given', async () => {
    const edited = applyPatch(seedOpening(), { facts: ['作者刚加的事实'] }).state;
    server.enqueue({ text: '{"patch":{"time":"深夜"}}' });
    const out = await runScribe(tree.deps(server, { getCurrentState: () => edited }), input());
    assert.equal(out.kind, 'applied');
    assert.deepEqual(tree.appended[0]?.state.facts, ['作者刚加的事实']);
    assert.equal(tree.appended[0]?.state.time, '深夜');
  });

  it('skipped when the turn did not finish normally or wrote no prose — no call made', async () => {
    assert.deepEqual(await runScribe(tree.deps(server), input({ turnFinishedNormally: false })), { kind: 'skipped', reason: 'turnNotFinished' });
    assert.deepEqual(await runScribe(tree.deps(server), input({ proseAdded: '  ' })), { kind: 'skipped', reason: 'noProse' });
    assert.equal(server.requests.length, 0);
  });

  it('an append failure → failed (append)', async () => {
    server.enqueue({ text: '{"patch":{}}' });
    const out = await runScribe(
      tree.deps(server, {
        appendState: async () => {
          throw new Error('disk full');
        },
      }),
      input(),
    );
    assert.equal(out.kind, 'failed');
    if (out.kind === 'failed') assert.equal(out.error.kind, 'append');
  });

  it('cancel → failed (model, aborted), nothing appended', async () => {
    server.enqueue({ text: '{"patch":{}}', delayMs: 2000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const out = await runScribe(tree.deps(server, { signal: ac.signal }), input());
    assert.equal(out.kind, 'failed');
    if (out.kind === 'failed') assert.equal(out.error.modelErrorKind, 'aborted');
    assert.equal(tree.appended.length, 0);
  });

  it('the main agent and the scribe share one server, told apart by the system prompt', async () => {
    server.route(bySystemPrompt('你是场记'), { text: '{"patch":{"time":"黎明"}}' }, 'scribe');
    server.setDefault({ text: '正文……' });
    const agent = createChatClient({ baseURL: server.url, apiKey: 'k', model: 'main-model', maxRetries: 0 });
    const prose = await agent.complete({ system: 'You are a novelist.', messages: [{ role: 'user', content: '写' }] });
    const out = await runScribe(tree.deps(server), input({ proseAdded: prose.text }));
    assert.equal(out.kind, 'applied');
    assert.deepEqual(server.chatRequests().map((r) => r.route), ['default', 'scribe']);
  });

  it('its cost does not depend on the book: only this turn is sent', async () => {
    server.setDefault({ text: '{"patch":{}}' });
    await runScribe(tree.deps(server), input({ proseAdded: '第一轮' }));
    await runScribe(tree.deps(server), input({ proseAdded: '第二轮' }));
    const second = String(server.chatRequests()[1]?.messages?.[1]?.content);
    assert.ok(second.includes('第二轮'));
    assert.ok(!second.includes('第一轮'));
  });
});
