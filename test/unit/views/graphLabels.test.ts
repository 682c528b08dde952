// The worldline graph page's labels: every label media/graph.js reads is in the table, and every
// word has a translation (the "{0}" stays for the page to fill).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GRAPH_LABELS } from '../../../src/protocol/graphLabels';
import { localize } from '../../../src/protocol/labels';
import { bundle } from '../fixtures/translation';

const repo = path.resolve(__dirname, '..', '..', '..', '..');

describe('graph labels', () => {
  it('every label media/graph.js reads is in GRAPH_LABELS, and each has a translation', () => {
    const text = fs.readFileSync(path.join(repo, 'media', 'graph.js'), 'utf8');
    const read = [...new Set([...text.matchAll(/\bL\.([A-Za-z_]\w*)/g)].map((m) => m[1]!))];
    assert.ok(read.length >= 5, `graph.js reads ${read.length} labels`);
    assert.deepEqual(read.filter((k) => !(k in GRAPH_LABELS)), []);
    const zh = localize(GRAPH_LABELS, (english) => bundle[english] ?? `MISSING ${english}`);
    assert.deepEqual(Object.values(zh).filter((w) => w.startsWith('MISSING')), []);
    assert.match(zh.load!, /\{0\}/);
  });
});
