// The page labels: every label a page script reads is in its table, and the shell's `translateLabels`
// (the real src/views/webviewHost.ts, over a stand-in for VS Code's l10n.t that behaves as VS
// Code's does: the bundle's string, "{n}" filled from the arguments) keeps every key, puts every
// word into Chinese and keeps "{0}" for the page to fill.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { CHAT_LABELS, STATE_LABELS, localize, type Labels } from '../../../src/protocol/labels';
import type { ChatModel } from '../../../src/protocol/chat';
import type { ScribeOutcomeKind } from '../../../src/protocol/state';
import type { StateEntry } from '../../../src/session/entries';
import { bundle } from '../fixtures/translation';

const repo = path.resolve(__dirname, '..', '..', '..', '..');

/** VS Code's l10n.t in a zh-cn window: the bundle's string (else the key), placeholders filled, unknown ones left. */
function vscodeT(message: string, ...args: string[]): string {
  const template = bundle[message] ?? message;
  if (args.length === 0) return template;
  return template.replace(/\{(\w+)\}/g, (match, group: string) => args[Number(group)] ?? match);
}

/** The label keys a page script reads as `L.name`. */
function labelsRead(page: string): string[] {
  const text = fs.readFileSync(path.join(repo, 'media', page), 'utf8');
  return [...new Set([...text.matchAll(/\bL\.([A-Za-z_]\w*)/g)].map((m) => m[1]!))];
}

// Records over the unions: adding a phase, an outcome or an author without listing it here fails to compile.
const phases: Record<ChatModel['phase'], true> = { idle: true, writing: true, tool: true, scribe: true };
const outcomes: Record<ScribeOutcomeKind, true> = { applied: true, stale: true, failed: true, skipped: true };
const sources: Record<StateEntry['by'] | 'opening', true> = { opening: true, scribe: true, user: true, import: true };

type Translate = (table: Labels) => Record<string, string>;

/** The shell's translate, loaded with `vscode` resolved to the stand-in. */
function shellTranslate(): Translate {
  const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
  const original = loader._resolveFilename;
  const fakeId = path.join(repo, 'test', 'unit', 'views', '__vscode_stand_in__.js');
  const cache = require.cache as Record<string, NodeModule | undefined>;
  cache[fakeId] = { id: fakeId, filename: fakeId, loaded: true, exports: { l10n: { t: vscodeT } } } as unknown as NodeModule;
  loader._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? fakeId : original.call(this, request, ...rest);
  };
  try {
    const host = path.resolve(__dirname, '..', '..', '..', 'src', 'views', 'webviewHost.js');
    return (require(host) as { translateLabels: Translate }).translateLabels;
  } finally {
    loader._resolveFilename = original;
  }
}

describe('page labels', () => {
  for (const [page, table, dynamic] of [
    ['chat.js', CHAT_LABELS, Object.keys(phases).map((p) => `phase_${p}`)],
    ['state.js', STATE_LABELS, [...Object.keys(outcomes).map((o) => `outcome_${o}`), ...Object.keys(sources).map((s) => `source_${s}`)]],
  ] as const) {
    it(`every label media/${page} reads is in its table`, () => {
      const read = labelsRead(page);
      assert.ok(read.length > 20, `${page} reads ${read.length} labels`);
      assert.deepEqual([...read, ...dynamic].filter((k) => !(k in table)), []);
    });
  }

  it("the shell's translate keeps every key, translates every word and keeps {0}", () => {
    const translate = shellTranslate();
    for (const table of [CHAT_LABELS, STATE_LABELS]) {
      const out = translate(table);
      assert.deepEqual(Object.keys(out), Object.keys(table));
      for (const [key, english] of Object.entries(table)) {
        if (english === '') assert.equal(out[key], '', key);
        else assert.equal(out[key], bundle[english], `${key}: ${english}`);
      }
    }
    assert.equal(translate(CHAT_LABELS).openFile, '打开 {0}');
    assert.equal(translate(STATE_LABELS).at, '在：{0}');
  });

  it('localize asks for no translation of the empty label, and keeps keys whatever the translator returns', () => {
    const asked: string[] = [];
    const out = localize({ a: 'Send', b: '', c: 'Open {0}' }, (s) => {
      asked.push(s);
      return '';
    });
    assert.deepEqual(asked, ['Send', 'Open {0}']);
    assert.deepEqual(out, { a: '', b: '', c: '' });
  });
});
