// What a session line may carry as provider fields: plain JSON objects of bounded size, on the
// assistant entry and on its tool calls; counts of cached and reasoning tokens in its usage.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { PROVIDER_FIELDS_MAX_CHARS, checkEntry, providerFieldsProblem } from '../../../src/session/validate';
import { runs } from '../long-mode';

const assistant = (over: Record<string, unknown>) => ({ type: 'assistant', id: 'a', parentId: 'u', ts: '2026-01-01T00:00:00.000Z', text: '', model: 'm', finish: 'stop', ...over });

describe('session/validate: provider fields', () => {
  it('accepts JSON objects on the entry and on its calls, and usage with cache and reasoning counts', () => {
    const ok = checkEntry(assistant({
      providerFields: { reasoning_content: '想', reasoning_details: [{ type: 'reasoning.text', text: 't', index: 0 }] },
      toolCalls: [{ id: 'c', name: 'f', arguments: '{}', providerFields: { extra_content: { google: { thought_signature: 'S' } } } }],
      usage: { promptTokens: 10, completionTokens: 2, cachedTokens: 8, reasoningTokens: 1 },
    }));
    assert.equal(ok.ok, true, ok.ok ? '' : ok.error);
  });

  it('refuses what is not plain data or too big, naming the field', () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ providerFields: 'reasoning' }, /providerFields/],
      [{ providerFields: ['x'] }, /providerFields/],
      [{ providerFields: { n: Number.POSITIVE_INFINITY } }, /providerFields/],
      [{ providerFields: { r: 'x'.repeat(PROVIDER_FIELDS_MAX_CHARS) } }, /providerFields/],
      [{ providerFields: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } } }, /providerFields/],
      [{ toolCalls: [{ id: 'c', name: 'f', arguments: '{}', providerFields: 7 }] }, /toolCalls/],
      [{ usage: { promptTokens: 1, completionTokens: 1, cachedTokens: -1 } }, /usage/],
      [{ usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 'many' } }, /usage/],
    ];
    for (const [over, field] of cases) {
      const r = checkEntry(assistant(over));
      assert.equal(r.ok, false, JSON.stringify(over).slice(0, 80));
      if (!r.ok) assert.match(r.error, field);
    }
    // A class instance is not plain data even if it serialises.
    assert.ok(providerFieldsProblem({ when: new Date(0) }) !== undefined);
  });

  it('property: any JSON line round-trips through the check without throwing; accepted fields are JSON objects within the cap', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const line = JSON.parse(JSON.stringify(assistant({ providerFields: v }))) as unknown;
        const r = checkEntry(line);
        if (r.ok) {
          const fields = (r.value as { providerFields?: unknown }).providerFields;
          assert.ok(typeof fields === 'object' && fields !== null && !Array.isArray(fields));
          assert.ok(JSON.stringify(fields).length <= PROVIDER_FIELDS_MAX_CHARS);
        }
      }),
      { numRuns: runs(200, 3000) },
    );
  });
});
