// The Choose Provider table: every provider the issue names is offered; each preset's base URL is
// recognised as the very dialect the preset sets (so `auto` and the preset agree); only local
// servers go without a key; which preset the settings match; a typed base URL is checked for what
// would break requests or leak a secret; the model list puts the suggestion first.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { runs } from '../long-mode';
import { dialectById, dialectFor, isLocalHost } from '../../../src/model/dialects';
import { checkBaseUrl, currentPreset, modelChoices, PRESETS, presetById, PRESET_IDS, type Preset } from '../../../src/model/presets';

describe('model/presets', () => {
  it('offers every provider of the issue, each once, custom last', () => {
    const labels = PRESETS.map((p) => p.label.toLowerCase());
    for (const name of ['deepseek', 'openai', 'openrouter', 'gemini', 'qwen', 'kimi', 'glm', 'siliconflow', 'ollama', 'lm studio']) {
      assert.ok(labels.some((l) => l.startsWith(name)), `${name} is offered`);
    }
    assert.equal(new Set(PRESET_IDS).size, PRESETS.length);
    assert.equal(PRESETS.at(-1)?.id, 'custom');
    assert.equal(presetById('custom').baseUrl, undefined);
  });

  it('each base URL is recognised as the dialect its preset sets, and cites an https page', () => {
    for (const p of PRESETS) {
      assert.match(p.docs, /^https:\/\//, `${p.id} cites its documentation`);
      if (p.id === 'custom') {
        assert.equal(p.provider, 'auto');
        continue;
      }
      assert.ok(p.baseUrl, p.id);
      assert.equal(dialectFor(p.baseUrl, 'auto').id, p.provider, `${p.id}: ${p.baseUrl}`);
    }
  });

  it('asks for a key everywhere but on the local servers, and the local ones are on this machine', () => {
    const keyless = PRESETS.filter((p) => !p.needsKey).map((p) => p.id);
    assert.deepEqual(keyless, ['ollama', 'lmstudio']);
    for (const p of PRESETS) {
      if (p.provider !== 'auto') assert.equal(p.needsKey, dialectById(p.provider).needsKey, p.id);
      if (!p.needsKey) assert.ok(isLocalHost(new URL(p.baseUrl!)), p.id);
      if (p.needsKey && p.baseUrl) assert.equal(new URL(p.baseUrl).protocol, 'https:', `${p.id}: a key only travels over https`);
    }
  });

  it('regional twins share a dialect and differ in host', () => {
    const byDialect = new Map<string, Preset[]>();
    for (const p of PRESETS) if (p.region) byDialect.set(p.provider, [...(byDialect.get(p.provider) ?? []), p]);
    assert.deepEqual([...byDialect.keys()].sort(), ['glm', 'kimi', 'qwen', 'siliconflow']);
    for (const [dialect, rows] of byDialect) {
      assert.deepEqual(rows.map((r) => r.region).sort(), ['china', 'international'], dialect);
      assert.notEqual(new URL(rows[0]!.baseUrl!).host, new URL(rows[1]!.baseUrl!).host, dialect);
    }
  });

  it('finds the preset the settings match, whatever the case and trailing slash; not another provider\'s', () => {
    assert.equal(currentPreset('https://API.DeepSeek.com/', 'auto')?.id, 'deepseek');
    assert.equal(currentPreset('https://generativelanguage.googleapis.com/v1beta/openai', undefined)?.id, 'gemini');
    assert.equal(currentPreset('https://api.deepseek.com', 'openai'), undefined, 'the provider setting says otherwise');
    assert.equal(currentPreset('https://api.deepseek.com/beta', 'auto'), undefined, 'another path is another endpoint');
    assert.equal(currentPreset('http://localhost:11434/v1', 'ollama')?.id, 'ollama');
    assert.equal(currentPreset('not a url', 'auto'), undefined);
  });

  it('checks a typed base URL: http(s), no credentials, no query or fragment', () => {
    assert.deepEqual(checkBaseUrl('  http://localhost:8000/v1  '), { ok: true, url: 'http://localhost:8000/v1' });
    assert.deepEqual(checkBaseUrl(''), { ok: false, problem: 'empty' });
    assert.deepEqual(checkBaseUrl('localhost:8000'), { ok: false, problem: 'notHttp' });
    assert.deepEqual(checkBaseUrl('api.example.com/v1'), { ok: false, problem: 'notUrl' });
    assert.deepEqual(checkBaseUrl('ftp://example.com'), { ok: false, problem: 'notHttp' });
    assert.deepEqual(checkBaseUrl('https://user:sk-secret@example.com/v1'), { ok: false, problem: 'hasCredentials' });
    assert.deepEqual(checkBaseUrl('https://example.com/v1?key=sk'), { ok: false, problem: 'hasQuery' });
    assert.deepEqual(checkBaseUrl('https://example.com/v1#x'), { ok: false, problem: 'hasQuery' });
  });

  it('never throws on hostile text, and what it accepts is an http(s) URL without user info', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constant('https://a:b@c.d')), (text) => {
      const r = checkBaseUrl(text);
      if (!r.ok) return;
      const u = new URL(r.url);
      assert.ok(u.protocol === 'http:' || u.protocol === 'https:');
      assert.equal(u.username + u.password, '');
      assert.equal(u.search + u.hash, '');
    }), { numRuns: runs(300, 5000) });
  });

  it('puts the suggested model first when the endpoint has it or lists nothing, never twice', () => {
    const deepseek = presetById('deepseek');
    assert.deepEqual(modelChoices(deepseek, ['deepseek-reasoner', 'deepseek-chat']), [
      { id: 'deepseek-chat', suggested: true }, { id: 'deepseek-reasoner', suggested: false },
    ]);
    assert.deepEqual(modelChoices(deepseek, []), [{ id: 'deepseek-chat', suggested: true }]);
    // An endpoint that does not serve the suggestion: it is not offered as if it did.
    assert.deepEqual(modelChoices(deepseek, ['other']), [{ id: 'other', suggested: false }]);
    assert.deepEqual(modelChoices(presetById('ollama'), []), [], 'a local server suggests nothing: whatever is loaded');
  });
});
