// `npm run bench [name]`: builds, then runs every bench/*.bench.ts (compiled to out/bench/), or
// those whose file name contains `name`. Each prints its own table of timings and ratios against a
// baseline measured in the same run. Each bench runs in a fresh Node process: one bench's heap
// (a 200k-row memory file) would otherwise slow the next one's git spawns and skew its figures.
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repo, ensureDependencies, build, listFiles } from './lib.mjs';

ensureDependencies();
build();
const filter = process.argv[2];
let failed = 0;
for (const file of listFiles(path.join(repo, 'out', 'bench'), '.bench.js')) {
  if (filter && !path.basename(file).includes(filter)) continue;
  console.log(`\n=== ${path.relative(repo, file)} ===`);
  const script = `const m = require(${JSON.stringify(file)});
if (typeof m.main !== 'function') { console.error('exports no main()'); process.exit(2); }
m.main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });`;
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { stdio: 'inherit', cwd: repo });
  if (child.status !== 0) {
    failed++;
    console.log(`(${path.basename(file)} ended with ${child.status ?? child.signal})`);
  }
}
process.exit(failed === 0 ? 0 : 1);
