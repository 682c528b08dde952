// The side model's draft of a codex entry: the prompt (language, the name's scene-state facts, only
// the turns that name it, bounded), the reply parsed into an entry, garbage refused with a clear
// error and never a throw, and one real HTTP round trip to the local test model server.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { buildDraftPrompt, DRAFT_LIMITS, draftEntry, parseDraft, stateFacts, turnsNaming, type DraftInput } from '../../../src/codex/draft';
import { formatCodexFile, parseCodexFile } from '../../../src/codex/file';
import { createChatClient } from '../../../src/model/chatClient';
import type { ChainEntry } from '../../../src/session/entries';
import type { SceneState } from '../../../src/state/types';
import { startModelServer } from '../../fixtures/modelServer';
import { runs } from '../long-mode';

const state: SceneState = {
  time: '深夜', location: '听雨轩',
  characters: { 青梧: { affinity: 5, status: '煮茶', notes: '客栈老板娘', at: '听雨轩' }, 沈砚: { affinity: 0, status: '', notes: '', at: '渡口' } },
  items: ['黄铜怀表（青梧持有）', '油纸伞'], facts: ['青梧收下了碎银', '雨下了一夜'], threads: ['青梧答应明早带路'],
  roster: { characters: { 青梧: '傍晚', 沈砚: '傍晚' }, locations: { 听雨轩: '傍晚' }, items: { 黄铜怀表: '深夜' }, threads: {} },
};

let n = 0;
const base = () => ({ id: `e${++n}`, parentId: null, ts: '' });
const user = (text: string) => ({ ...base(), type: 'user', text }) as ChainEntry;
const assistant = (text: string, prose?: string) => ({
  ...base(), type: 'assistant', text, model: 'm', finish: 'stop',
  ...(prose ? { toolCalls: [{ id: 'c', name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: prose }) }] } : {}),
}) as ChainEntry;

const target = { name: '青梧', kind: 'character' as const, folder: 'codex' };

describe('codex draft', () => {
  it('the turns naming it: instruction, prose from the tools and reply; others left out; the newest few', () => {
    const path = [
      user('写雨。'), assistant('写好了。', '雨落在瓦上。'),
      user('写她煮茶。'), assistant('', '青梧提起铜壶。'),
      user('写沈砚。'), assistant('沈砚来了，QINGWU 没抬头。'),
      user('bad tool args'), { ...base(), type: 'assistant', text: '', model: 'm', finish: 'stop', toolCalls: [{ id: 'x', name: 'write_file', arguments: '{not json' }] } as ChainEntry,
    ];
    const turns = turnsNaming(path, '青梧');
    assert.deepEqual(turns, [{ instruction: '写她煮茶。', prose: '青梧提起铜壶。', reply: '' }]);
    assert.deepEqual(turnsNaming(path, 'qingwu').map((t) => t.instruction), ['写沈砚。'], 'case-insensitive');
    const many = Array.from({ length: 20 }, (_, i) => [user(`第${i}轮，青梧。`), assistant('好')]).flat();
    assert.deepEqual(turnsNaming(many, '青梧').map((t) => t.instruction), Array.from({ length: DRAFT_LIMITS.turns }, (_, i) => `第${20 - DRAFT_LIMITS.turns + i}轮，青梧。`));
    assert.deepEqual(turnsNaming(many, '  '), []);
  });

  it('the scene-state facts about the name', () => {
    assert.deepEqual(stateFacts(state, '青梧'), {
      character: state.characters['青梧'], firstSeen: '傍晚', items: ['黄铜怀表（青梧持有）'], facts: ['青梧收下了碎银'], threads: ['青梧答应明早带路'],
    });
    assert.deepEqual(stateFacts(state, '听雨轩'), { firstSeen: '傍晚', isCurrentLocation: true });
    assert.deepEqual(stateFacts(state, '黄铜怀表'), { firstSeen: '深夜', items: ['黄铜怀表（青梧持有）'] });
  });

  it('the prompt in the project language, with the name, its facts and the turns, each turn clipped', () => {
    const input: DraftInput = { name: '青梧', kind: 'character', state, lang: 'zh', turns: [{ instruction: '写她。', prose: '青'.repeat(10_000), reply: '好' }] };
    const zh = buildDraftPrompt(input);
    assert.match(zh.system, /设定条目/);
    assert.match(zh.user, /^【名字】青梧（人物）/);
    assert.ok(zh.user.includes('客栈老板娘') && zh.user.includes('黄铜怀表（青梧持有）'));
    assert.ok(zh.user.length < DRAFT_LIMITS.turnChars + 1_000, `clipped: ${zh.user.length}`);
    assert.match(zh.user, /中间省略/);
    const enPrompt = buildDraftPrompt({ ...input, lang: 'en', turns: [] });
    assert.match(enPrompt.system, /codex entry/);
    assert.match(enPrompt.user, /^\[Name\] 青梧 \(character\)/);
    assert.match(enPrompt.user, /\(none\)/);
    assert.ok(!enPrompt.system.includes('设定'));
  });

  it('a good reply becomes an entry (fenced or with prose around it); its file parses back', () => {
    const reply = '好的：\n```json\n{"keys":["阿梧","青梧","Qingwu",7,""],"body":"客栈老板娘。\\n\\n收下了碎银。"}\n```';
    const got = parseDraft(reply, target);
    assert.ok(got.ok);
    assert.deepEqual(got.entry, {
      path: 'codex/characters/青梧.md', name: '青梧', kind: 'character', keys: ['青梧', '阿梧', 'Qingwu'], secondaryKeys: [], logic: 'and-any',
      always: false, priority: 0, disabled: false, body: '客栈老板娘。\n\n收下了碎银。\n',
    });
    const file = parseCodexFile(got.entry.path, formatCodexFile(got.entry));
    assert.ok(file.ok);
    assert.equal(file.entry.name, '青梧');
    assert.deepEqual(file.entry.keys, ['青梧', '阿梧', 'Qingwu']);
    assert.equal(file.entry.body.trim(), '客栈老板娘。\n\n收下了碎银。');
    const place = parseDraft('{"body":"雨夜的客栈。"}', { name: '听雨轩', kind: 'place', folder: 'lore/' });
    assert.ok(place.ok && place.entry.path === 'lore/places/听雨轩.md' && place.entry.keys.length === 1);
  });

  it('garbage gives a clear error naming the entry, never a throw (property)', () => {
    for (const bad of ['', '   ', 'I cannot help with that.', '{"keys":["a"]}', '{"body":""}', '{"body":"x","keys":"a"}', '[1,2]', '{"body": 3}', 'x'.repeat(DRAFT_LIMITS.replyChars + 1)]) {
      const got = parseDraft(bad, target);
      assert.ok(!got.ok, bad.slice(0, 40));
      assert.ok(got.error.args.includes('青梧') && /Nothing was written/.test(got.error.message), got.error.message);
    }
    assert.ok(!parseDraft(undefined, target).ok);
    const json = fc.jsonValue().map((v) => JSON.stringify(v));
    const junk = fc.oneof(fc.string(), json, json.map((s) => `\`\`\`json\n${s}\n\`\`\``), fc.string().map((s) => `{"body":${JSON.stringify(s)},"keys":[${JSON.stringify(s)}]}`), fc.anything());
    fc.assert(fc.property(junk, (text) => {
      const got = parseDraft(text, target);
      if (got.ok) {
        assert.ok(got.entry.body.trim() !== '' && got.entry.keys[0] === '青梧' && got.entry.keys.length <= DRAFT_LIMITS.keys + 1);
        assert.ok([...got.entry.body].length <= DRAFT_LIMITS.bodyChars + 1);
      } else {
        assert.ok(got.error.message.length > 20 && got.error.args.includes('青梧'));
      }
    }), { numRuns: runs(400, 5000) });
  });

  it('draftEntry over real HTTP: the side model gets the prompt and its reply becomes the draft; a failed call is an error', async () => {
    const server = await startModelServer();
    try {
      server.enqueue({ text: '{"keys":["阿梧"],"body":"客栈老板娘。"}' }, { status: 500, errorBody: { error: { message: 'boom' } } });
      const client = createChatClient({ baseURL: server.url, apiKey: '', model: 'side', maxRetries: 0 });
      const input = { ...target, state, lang: 'zh' as const, turns: [{ instruction: '写青梧。', prose: '', reply: '' }] };
      const got = await draftEntry({ client, model: 'side-model' }, input);
      assert.ok(got.ok && got.entry.body === '客栈老板娘。\n');
      const req = server.chatRequests()[0]!;
      assert.equal(req.model, 'side-model');
      assert.match(req.system ?? '', /设定条目/);
      assert.match(String(req.messages?.at(-1)?.content), /写青梧。/);
      const failed = await draftEntry({ client, model: 'side-model' }, input);
      assert.ok(!failed.ok && /failed/.test(failed.error.message));
    } finally {
      await server.close();
    }
  });
});
