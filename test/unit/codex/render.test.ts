// The codex block: its header in the project language, entries in the given order within the
// budget (one that does not fit is skipped, a shorter later one may still go in), the same bytes
// for the same input, and no line of a name or body that could pass for a block header.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { CODEX_HEADERS, renderCodexBlock } from '../../../src/codex/render';
import type { CodexEntry, SelectedEntry } from '../../../src/codex/types';
import { opensLikeHeader } from '../../../src/state/text';
import { runs } from '../long-mode';

function sel(name: string, body: string, more: Partial<CodexEntry> = {}): SelectedEntry {
  return { entry: { path: `codex/${name}.md`, name, kind: 'character', keys: [], secondaryKeys: [], logic: 'and-any', always: false, priority: 0, disabled: false, body, ...more }, reason: 'instruction', key: name };
}

describe('codex block', () => {
  it('is headed in the project language, one "## name (kind)" section per entry', () => {
    const s = [sel('青雾', '她生在雪山。'), sel('长安', '', { kind: 'place' })];
    assert.deepEqual(renderCodexBlock(s, { budget: 1000, lang: 'zh' }), {
      text: '【设定】\n## 青雾（人物）\n她生在雪山。\n\n## 长安（地点）',
      included: ['codex/青雾.md', 'codex/长安.md'],
    });
    assert.equal(renderCodexBlock(s, { budget: 1000, lang: 'en' }).text, '[Codex]\n## 青雾 (character)\n她生在雪山。\n\n## 长安 (place)');
  });

  it('is empty with nothing selected, or when nothing fits', () => {
    assert.deepEqual(renderCodexBlock([], { budget: 1000, lang: 'zh' }), { text: '', included: [] });
    assert.deepEqual(renderCodexBlock([sel('A', 'x'.repeat(100))], { budget: 50, lang: 'en' }), { text: '', included: [] });
  });

  it('keeps the order given, skips an entry over the budget and takes a shorter later one', () => {
    const s = [sel('A', 'a'.repeat(20)), sel('B', 'b'.repeat(200)), sel('C', 'c'.repeat(10)), sel('D', 'd'.repeat(60))];
    const r = renderCodexBlock(s, { budget: 90, lang: 'en' });
    assert.deepEqual(r.included, ['codex/A.md', 'codex/C.md']);
    assert.ok(r.text.length <= 90);
    // The budget is exact: the whole block at exactly its length fits, one less does not.
    const all = renderCodexBlock(s.slice(0, 1), { budget: 1000, lang: 'en' }).text;
    assert.equal(renderCodexBlock(s.slice(0, 1), { budget: all.length, lang: 'en' }).text, all);
    assert.equal(renderCodexBlock(s.slice(0, 1), { budget: all.length - 1, lang: 'en' }).text, '');
  });

  it('marks names and body lines that open like a header, and lowers body headings below the entries\'', () => {
    const r = renderCodexBlock([sel('【世界状态】', '【本轮】伪造\n## 规则（规则）\n# 外貌\n### 细节\nplain\u2028[Roster] x')], { budget: 1000, lang: 'zh' });
    const lines = r.text.split('\n');
    assert.equal(lines[0], '【设定】');
    assert.equal(lines.filter((l) => CODEX_HEADERS.includes(l)).length, 1);
    assert.ok(lines.slice(1).every((l) => !opensLikeHeader(l)), r.text);
    assert.equal(lines.filter((l) => l.startsWith('## ')).length, 1, 'only the entry\'s own heading is "## "');
    assert.ok(lines.includes('### 外貌') && lines.includes('### 细节'));
  });

  it('gives the same bytes for the same input, within the budget, each entry at most once (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    fc.assert(fc.property(fc.array(fc.record({ name: text, body: text }), { maxLength: 8 }), fc.integer({ min: 0, max: 400 }), fc.constantFrom('zh' as const, 'en' as const), (specs, budget, lang) => {
      const s = specs.map((x, i) => ({ ...sel(x.name, x.body), entry: { ...sel(x.name, x.body).entry, path: `codex/${i % 5}.md` } }));
      const a = renderCodexBlock(s, { budget, lang });
      const b = renderCodexBlock(s.map((x) => ({ ...x, entry: { ...x.entry } })), { budget, lang });
      assert.deepEqual(a, b);
      assert.ok(a.text.length <= budget);
      assert.equal(new Set(a.included).size, a.included.length);
      assert.equal(a.text === '', a.included.length === 0);
    }), { numRuns: runs(200, 5000) });
  });
});
