// The file-system side of confinement (confinedFile.ts), on real files, for each strategy the
// platform has: hard links to outside files, FIFOs and sockets named like chapters, links that
// bypass the early path check, and what a write keeps (mode, no temp files, read-only files).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { isConfinementError, type Strategy } from '../../../src/agent/confinedFile';
import { NodeManuscriptFs } from '../../../src/agent/fsNode';
import { executeTool } from '../../../src/agent/tools';
import { CANARY, makeNovel, strategies, tryMkfifo, within, type Novel } from './confineHelpers';
import { trySymlink } from './toolsHelpers';

const TOOLS = [
  ['read_file', (p: string) => ({ path: p })],
  ['write_file', (p: string) => ({ path: p, content: 'pwned' })],
  ['append_file', (p: string) => ({ path: p, content: 'pwned' })],
  ['edit_file', (p: string) => ({ path: p, old_text: CANARY, new_text: 'pwned' })],
] as const;

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (err) {
    return isConfinementError(err) ? err.code : `other: ${String(err)}`;
  }
}

describe('agent/confinedFile', () => {
  let available: Strategy[] = ['path'];
  before(async () => {
    available = await strategies();
  });

  for (const strategy of ['handle', 'path'] as const) {
    describe(`strategy ${strategy}`, () => {
      let nv: Novel;
      beforeEach(function () {
        if (!available.includes(strategy)) this.skip();
        nv = makeNovel({ strategy: strategy === 'path' ? 'path' : 'auto' });
      });
      afterEach(() => nv?.cleanup());

      describe('hard links', () => {
        it('refuses read, write, append and edit of a hard link to an outside file; the outside file stays byte-identical', async () => {
          const outsideFile = path.join(nv.outside, '03.md');
          const inside = path.join(nv.root, 'chapters', '03.md');
          fs.linkSync(outsideFile, inside);
          const before = fs.readFileSync(outsideFile);
          const ino = fs.statSync(outsideFile).ino;
          let refused = 0;
          for (const [tool, args] of TOOLS) {
            for (const lang of ['en', 'zh'] as const) {
              const out = await executeTool({ ...nv.ctx, lang }, tool, JSON.stringify(args('chapters/03.md')));
              assert.equal(out.isError, true, `${tool}: ${out.result}`);
              assert.equal(out.change, undefined);
              assert.ok(!out.result.includes(CANARY), `${tool} leaked`);
              assert.match(out.result, lang === 'en' ? /has more than one hard link; the agent only edits files that live only in the manuscript/ : /有多个硬链接/);
              refused++;
            }
          }
          assert.equal(refused, 8);
          assert.deepEqual(fs.readFileSync(outsideFile), before);
          assert.equal(fs.statSync(outsideFile).ino, ino);
          assert.equal(fs.statSync(inside).nlink, 2, 'the link inside is left as it was');
          // The file system layer refuses on its own too (not only the tools' early check).
          assert.equal(await codeOf(nv.fs.readText('chapters/03.md')), 'WL_HARD_LINK');
          assert.equal(await codeOf(nv.fs.writeText('chapters/03.md', 'x')), 'WL_HARD_LINK');
          assert.deepEqual(fs.readFileSync(outsideFile), before);
        });

        it('hides a hard-linked file from list_manuscript without reading it', async () => {
          fs.linkSync(path.join(nv.outside, '03.md'), path.join(nv.root, 'chapters', '03.md'));
          const out = await nv.run('list_manuscript', {});
          assert.equal(out.isError, false);
          assert.ok(!out.result.includes('03.md') && !out.result.includes(CANARY), out.result);
          assert.match(out.result, /^2 manuscript files, /);
          assert.match(out.result, /1 more file not shown/);
        });
      });

      describe('files that are not regular files', () => {
        it('answers every tool on a FIFO named like a chapter with a clear error within 2 s, and never blocks', async function () {
          const fifo = path.join(nv.root, 'chapters', '04.md');
          if (!tryMkfifo(fifo)) this.skip();
          for (const [tool, args] of TOOLS) {
            const { value: out, ms } = await within(2000, tool, nv.run(tool, args('chapters/04.md')));
            assert.ok(ms < 2000, `${tool} took ${ms} ms`);
            assert.equal(out.isError, true, `${tool}: ${out.result}`);
            assert.match(out.result, /"chapters\/04\.md" is a named pipe \(FIFO\), not a regular file, so the agent does not open it\. Write to another file name/);
          }
          const { value: list } = await within(2000, 'list_manuscript', nv.run('list_manuscript', {}));
          assert.ok(!list.result.includes('04.md'));
          assert.match(list.result, /1 more file not shown/);
          assert.equal(await codeOf(within(2000, 'readText', nv.fs.readText('chapters/04.md'))), 'WL_NOT_FILE');
          assert.equal(await codeOf(within(2000, 'writeText', nv.fs.writeText('chapters/04.md', 'x'))), 'WL_NOT_FILE');
          assert.ok(fs.lstatSync(fifo).isFIFO(), 'the FIFO is left alone');
        });

        it('refuses a unix socket named like a chapter, quickly', async function () {
          if (process.platform === 'win32') this.skip();
          const sock = path.join(nv.root, 'chapters', '05.md');
          const server = net.createServer();
          await new Promise<void>((resolve, reject) => server.once('error', reject).listen(sock, resolve));
          try {
            for (const [tool, args] of TOOLS) {
              const { value: out } = await within(2000, tool, nv.run(tool, args('chapters/05.md')));
              assert.equal(out.isError, true);
              assert.match(out.result, /is a socket, not a regular file/);
            }
          } finally {
            await new Promise<void>((resolve) => server.close(() => resolve()));
          }
        });

        it('says a folder is a folder', async () => {
          fs.mkdirSync(path.join(nv.root, 'chapters', 'dir.md'));
          assert.match((await nv.run('read_file', { path: 'chapters/dir.md' })).result, /is a folder, not a file/);
          assert.match((await nv.run('append_file', { path: 'chapters/dir.md', content: 'x' })).result, /is a folder, not a file/);
        });
      });

      describe('links, below the early path check', () => {
        it('refuses a file link and a folder link at the file-system layer, inside or out, creating nothing', async function () {
          if (!trySymlink('01.md', path.join(nv.root, 'chapters', 'in.md'), 'file')) this.skip();
          trySymlink(path.join(nv.outside, '01.md'), path.join(nv.root, 'chapters', 'out.md'), 'file');
          trySymlink(nv.outside, path.join(nv.root, 'ext'), 'dir');
          trySymlink('chapters', path.join(nv.root, 'cur'), 'dir');
          const before = nv.outsideNow();
          for (const rel of ['chapters/in.md', 'chapters/out.md', 'ext/01.md', 'ext/new.md', 'ext/sub/new.md', 'cur/01.md', 'cur/new.md']) {
            assert.equal(await codeOf(nv.fs.readText(rel)), 'WL_LINK', `read ${rel}`);
            assert.equal(await codeOf(nv.fs.writeText(rel, 'pwned')), 'WL_LINK', `write ${rel}`);
          }
          assert.deepEqual(nv.outsideNow(), before);
          assert.equal(fs.readFileSync(path.join(nv.root, 'chapters', '01.md'), 'utf8'), 'One. MARK\n');
          assert.ok(!fs.existsSync(path.join(nv.root, 'chapters', 'new.md')));
          assert.ok(fs.lstatSync(path.join(nv.root, 'chapters', 'in.md')).isSymbolicLink());
        });

        it('still works when the novel folder itself is reached through a link', async function () {
          const alias = path.join(nv.base, 'alias');
          if (!trySymlink(nv.root, alias, 'dir')) this.skip();
          const viaAlias = new NodeManuscriptFs(alias, { strategy: strategy === 'path' ? 'path' : 'auto' });
          assert.equal(await viaAlias.readText('chapters/01.md'), 'One. MARK\n');
          await viaAlias.writeText('chapters/deep/new.md', 'New.');
          assert.equal(fs.readFileSync(path.join(nv.root, 'chapters', 'deep', 'new.md'), 'utf8'), 'New.');
        });
      });

      describe('writes', () => {
        it('replace the file through a temp file, keep its mode and leave no temp file', async function () {
          const file = path.join(nv.root, 'chapters', '01.md');
          if (process.platform !== 'win32') fs.chmodSync(file, 0o640);
          const out = await nv.run('append_file', { path: 'chapters/01.md', content: 'More.\n' });
          assert.equal(out.isError, false, out.result);
          assert.equal(fs.readFileSync(file, 'utf8'), 'One. MARK\nMore.\n');
          if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o640);
          await nv.run('write_file', { path: 'chapters/new/deeper/09.md', content: 'Nine.' });
          const stray = fs.readdirSync(nv.root, { recursive: true }).map(String).filter((n) => n.includes('.wl-'));
          assert.deepEqual(stray, []);
        });

        it('refuse a read-only file rather than replace it behind the novelist\'s back', async function () {
          if (process.platform === 'win32') this.skip();
          const file = path.join(nv.root, 'chapters', '02.md');
          fs.chmodSync(file, 0o444);
          const out = await nv.run('write_file', { path: 'chapters/02.md', content: 'changed' });
          assert.equal(out.isError, true);
          assert.match(out.result, /Permission denied for "chapters\/02\.md"/);
          assert.equal(fs.readFileSync(file, 'utf8'), 'Two.\n');
        });

        it('refuse a path that is not validated, as a programming error', async () => {
          for (const rel of ['', '../x.md', 'a//b.md', '/abs.md', 'a/./b.md', 'a\\b.md']) {
            assert.match(await codeOf(nv.fs.writeText(rel, 'x')), /not a validated relative path/, rel);
          }
        });
      });
    });
  }
});
