// confineReal on a real folder: every symlink below the novel folder is refused for reading and
// writing, with a hint to the real path when the link stays inside at a manuscript file.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeManuscriptFs } from '../../../src/agent/fsNode';
import { confineReal } from '../../../src/agent/paths';
import { executeTool } from '../../../src/agent/tools';
import { GLOBS, SECRET, makeSandbox, snapshot, trySymlink, type Sandbox } from './toolsHelpers';

describe('agent/paths confineReal (symlinks)', () => {
  let sb: Sandbox;
  beforeEach(function () {
    sb = makeSandbox();
    sb.write('chapters/01.md', 'Chapter one.\n');
    if (!trySymlink(path.join(sb.outside, 'secret.md'), path.join(sb.root, 'probe.md'), 'file')) this.skip();
    fs.unlinkSync(path.join(sb.root, 'probe.md'));
  });
  afterEach(() => sb.cleanup());

  async function refusedEverywhere(rel: string, pattern: RegExp): Promise<void> {
    const before = snapshot(sb.outside);
    for (const [tool, args] of [
      ['read_file', { path: rel }],
      ['write_file', { path: rel, content: 'pwned' }],
      ['append_file', { path: rel, content: 'pwned' }],
      ['edit_file', { path: rel, old_text: SECRET, new_text: 'pwned' }],
    ] as const) {
      const out = await sb.run(tool, args);
      assert.equal(out.isError, true, `${tool} ${rel}: ${out.result}`);
      assert.match(out.result, pattern, `${tool} ${rel}`);
      assert.ok(!out.result.includes(SECRET));
    }
    assert.deepEqual(snapshot(sb.outside), before);
  }

  it('refuses a file symlink pointing out', async () => {
    trySymlink(path.join(sb.outside, 'secret.md'), path.join(sb.root, 'chapters', 'leak.md'), 'file');
    await refusedEverywhere('chapters/leak.md', /leads outside the novel folder through a link/);
  });

  it('refuses a relative file symlink pointing out', async () => {
    trySymlink(path.join('..', '..', 'outside', 'secret.md'), path.join(sb.root, 'chapters', 'leak.md'), 'file');
    await refusedEverywhere('chapters/leak.md', /leads outside/);
  });

  it('refuses a directory symlink pointing out, at the top and in the middle, for new files too', async () => {
    trySymlink(sb.outside, path.join(sb.root, 'out'), 'dir');
    trySymlink(path.join('..', '..', 'outside'), path.join(sb.root, 'chapters', 'deep'), 'dir');
    await refusedEverywhere('out/secret.md', /leads outside/);
    await refusedEverywhere('chapters/deep/secret.md', /leads outside/);
    await refusedEverywhere('out/new.md', /leads outside/);
    await refusedEverywhere('chapters/deep/sub/new.md', /leads outside/);
    assert.ok(!fs.existsSync(path.join(sb.outside, 'new.md')));
    assert.ok(!fs.existsSync(path.join(sb.outside, 'sub')));
  });

  it('refuses a dangling link, which a write would follow anywhere', async () => {
    trySymlink(path.join(sb.outside, 'not-yet.md'), path.join(sb.root, 'dangling.md'), 'file');
    trySymlink(path.join(sb.outside, 'no-dir'), path.join(sb.root, 'gone'), 'dir');
    await refusedEverywhere('dangling.md', /broken link/);
    await refusedEverywhere('gone/x.md', /broken link/);
    assert.ok(!fs.existsSync(path.join(sb.outside, 'not-yet.md')));
    assert.ok(!fs.existsSync(path.join(sb.outside, 'no-dir')));
  });

  it('refuses a link loop', async () => {
    trySymlink('loop.md', path.join(sb.root, 'loop.md'), 'file');
    await refusedEverywhere('loop.md', /broken link/);
  });

  // The rule changed on purpose (issue 10): a link that stays inside is refused too, since only a
  // plain file at its own path can be checked by handle; the refusal names the real path.
  it('refuses a link inside the novel to a manuscript file, naming the real path', async () => {
    trySymlink('01.md', path.join(sb.root, 'chapters', 'latest.md'), 'file');
    await refusedEverywhere('chapters/latest.md', /"chapters\/latest\.md" is a symbolic link\..*Use "chapters\/01\.md" instead/);
    assert.equal(sb.read('chapters/01.md'), 'Chapter one.\n');
    assert.ok(fs.lstatSync(path.join(sb.root, 'chapters', 'latest.md')).isSymbolicLink(), 'the link stays a link');
    const zh = await executeTool({ ...sb.ctx, lang: 'zh' }, 'read_file', JSON.stringify({ path: 'chapters/latest.md' }));
    assert.match(zh.result, /是符号链接.*请改用 "chapters\/01\.md"/);
  });

  it('refuses a folder link inside the novel, for new files too, naming the real path', async () => {
    trySymlink('chapters', path.join(sb.root, 'current'), 'dir');
    await refusedEverywhere('current/02.md', /"current" is a symbolic link\..*Use "chapters\/02\.md" instead/);
    assert.ok(!fs.existsSync(path.join(sb.root, 'chapters', '02.md')));
  });

  it('refuses links into non-manuscript files and reserved folders', async () => {
    sb.write('worldline.yaml', 'title: t\n');
    sb.write('.worldline/sessions/s.md', 'session');
    trySymlink('worldline.yaml', path.join(sb.root, 'yaml.md'), 'file');
    trySymlink(path.join('.worldline', 'sessions'), path.join(sb.root, 'sess'), 'dir');
    trySymlink('.git', path.join(sb.root, 'g'), 'dir');
    fs.mkdirSync(path.join(sb.root, '.git'));
    await refusedEverywhere('yaml.md', /is a link to "worldline\.yaml", which is not a manuscript file/);
    await refusedEverywhere('sess/s.md', /link to "\.worldline\/sessions\/s\.md"/);
    await refusedEverywhere('g/new.md', /link to "\.git\/new\.md"/);
    assert.equal(sb.read('worldline.yaml'), 'title: t\n');
    assert.equal(sb.read('.worldline/sessions/s.md'), 'session');
    assert.deepEqual(fs.readdirSync(path.join(sb.root, '.git')), []);
  });

  it('hides links from list_manuscript, those leading out and those staying inside', async () => {
    trySymlink(path.join(sb.outside, 'secret.md'), path.join(sb.root, 'leak.md'), 'file');
    trySymlink('01.md', path.join(sb.root, 'chapters', 'latest.md'), 'file');
    trySymlink('chapters', path.join(sb.root, 'current'), 'dir');
    const out = await sb.run('list_manuscript', {});
    assert.ok(!out.result.includes('leak.md'));
    assert.ok(!out.result.includes('latest.md'));
    assert.ok(!out.result.includes('current/'), 'a linked folder is not descended into');
    assert.match(out.result, /^1 manuscript file, /);
    assert.match(out.result, /2 more files not shown/);
    assert.ok(!out.result.includes(SECRET));
  });

  it('works when the novel folder itself is reached through a link', async () => {
    const alias = path.join(sb.base, 'alias');
    trySymlink(sb.root, alias, 'dir');
    const fsx = new NodeManuscriptFs(alias);
    assert.deepEqual(await confineReal(fsx, 'chapters/01.md', GLOBS), { ok: true });
    assert.deepEqual(await confineReal(fsx, 'chapters/new/02.md', GLOBS), { ok: true });
  });
});
