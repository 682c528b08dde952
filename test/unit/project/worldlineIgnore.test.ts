// .worldline/.gitignore keeps the novelist's own git quiet: in a real git repository holding a book
// with every file Worldline makes under .worldline/ (a real checkpoint store, one set aside by a
// rebuild, backups, the lock, the memory store, temp files), `git status` lists the book, the
// sessions, worldlines.json and the .gitignore itself, and nothing else. Initialize Novel writes it;
// one the novelist already has is never touched.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { initializeNovel } from '../../../src/project/initializeFlow';
import { WORLDLINE_IGNORE, WORLDLINE_IGNORE_FILE, ensureWorldlineIgnore } from '../../../src/project/worldlineIgnore';
import { ShadowRepo } from '../../../src/checkpoints';
import { ScriptedPrompter } from '../fixtures/scriptedPrompter';
import { DEFAULT_GLOBS } from '../checkpoints/helpers';

/** `git status --porcelain` of the novelist's own repository, every untracked file listed. */
function status(root: string): string[] {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root, GIT_DIR: path.join(root, '.git'), GIT_WORK_TREE: root };
  const out = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, env, encoding: 'utf8' });
  return out.split('\n').filter((l) => l !== '').map((l) => l.slice(3)).sort();
}

function put(root: string, rel: string, text = 'x\n'): void {
  const abs = path.join(root, ...rel.split('/'));
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
}

describe('.worldline/.gitignore', function () {
  this.timeout(30_000);
  const made: string[] = [];
  afterEach(() => { for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

  function repoDir(): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-ignore-'));
    made.push(root);
    execFileSync('git', ['init', '-q', root], { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root } });
    return root;
  }

  it('Initialize Novel writes it; git then shows the book, the sessions and worldlines.json, and nothing else of .worldline', async () => {
    const root = repoDir();
    const host = { prompter: new ScriptedPrompter(), displayLanguage: 'en', openFile: () => Promise.resolve(), reloadConfig: () => Promise.resolve() };
    assert.equal(await initializeNovel(host, root, 'Rain Inn'), true);
    assert.equal(fs.readFileSync(path.join(root, ...WORLDLINE_IGNORE_FILE.split('/')), 'utf8'), WORLDLINE_IGNORE);

    // Everything Worldline makes as a book is written, a real checkpoint store and a rebuilt one included.
    const repo = await ShadowRepo.open(root, { globs: DEFAULT_GLOBS });
    assert.ok(repo instanceof ShadowRepo);
    repo.close();
    (await ShadowRepo.rebuild(root, { globs: DEFAULT_GLOBS })).close();
    assert.ok(fs.readdirSync(path.join(root, '.worldline')).some((n) => /^checkpoints\.broken-.*\.git$/.test(n)));
    put(root, '.worldline/sessions/20260101-a.jsonl', '{"type":"session"}\n');
    put(root, '.worldline/worldlines.json', '{}\n');
    put(root, '.worldline/backups/20260101-a/20260101T000000Z.jsonl');
    put(root, '.worldline/lock', '{"pid":1}\n');
    put(root, '.worldline/lock.abc123.tmp');
    put(root, '.worldline/current-session.json', '{"id":"20260101-a"}\n');
    put(root, '.worldline/memory/20260101-a.jsonl', '{"type":"memory"}\n');
    put(root, '.worldline/.worldlines.json.1a2b3c.tmp');

    const shown = status(root);
    assert.deepEqual(shown.filter((p) => p.startsWith('.worldline/')), [
      '.worldline/.gitignore',
      '.worldline/sessions/20260101-a.jsonl',
      '.worldline/worldlines.json',
    ]);
    assert.ok(shown.includes('worldline.yaml') && shown.includes('chapters/01.md'), shown.join('\n'));
  });

  it('the first open writes one only where none is; an existing one is never touched, nor a link followed', async () => {
    const root = repoDir();
    assert.equal(await ensureWorldlineIgnore(root), 'written');
    const own = '# mine\n*\n';
    fs.writeFileSync(path.join(root, '.worldline', '.gitignore'), own);
    assert.equal(await ensureWorldlineIgnore(root), 'kept');
    assert.equal(fs.readFileSync(path.join(root, '.worldline', '.gitignore'), 'utf8'), own);

    const other = repoDir();
    const outside = path.join(other, 'elsewhere.txt');
    fs.mkdirSync(path.join(other, '.worldline'));
    fs.symlinkSync(outside, path.join(other, '.worldline', '.gitignore'));
    assert.equal(await ensureWorldlineIgnore(other), 'kept');
    assert.equal(fs.existsSync(outside), false, 'a dangling link is not written through');
  });
});
