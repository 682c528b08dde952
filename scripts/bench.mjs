// `npm run bench`: builds, then runs every bench/*.bench.ts (compiled to out/bench/). Each prints
// its own table of timings and ratios against a baseline measured in the same run.
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { repo, ensureDependencies, build, listFiles } from './lib.mjs';

ensureDependencies();
build();
const require = createRequire(import.meta.url);
const filter = process.argv[2];
for (const file of listFiles(path.join(repo, 'out', 'bench'), '.bench.js')) {
  if (filter && !path.basename(file).includes(filter)) continue;
  console.log(`\n=== ${path.relative(repo, file)} ===`);
  const mod = require(file);
  if (typeof mod.main !== 'function') throw new Error(`${file} exports no main()`);
  await mod.main();
}
