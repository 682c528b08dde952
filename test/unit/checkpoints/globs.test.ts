// The manuscript the checkpoints track is the project's one matcher (src/project/manuscript.ts):
// the walk lists what it accepts, prunes only folders that cannot hold a match, and the store
// refuses globs the project config would have reported.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, ShadowRepo, walkManuscript } from '../../../src/checkpoints';
import { compileManuscript } from '../../../src/project/manuscript';
import { parseProjectConfig } from '../../../src/project/config';
import { cleanupTmp, filesAt, ok, openRepo, tmpDir, write } from './helpers';

const FILES = [
  'a.md', 'chapters/01.md', 'chapters/part 1/第一章.md', 'chapters/.trash/old.md', 'drafts/x.md',
  '.obsidian/x.md', 'sub/.git/x.md', 'sub/.worldline/a.md', 'node_modules/p/readme.md', '.vscode/notes.md',
  '.vscode/settings.json', 'worldline.yaml', 'scripts/x.js', 'notes.txt', 'Chapters/LOUD.MD',
];

function book(): string {
  const root = tmpDir('wl-globs-');
  for (const f of FILES) write(root, f, `${f}\n`);
  return root;
}

async function walk(root: string, globs: string[]): Promise<string[]> {
  return (await walkManuscript(root, compileManuscript(globs).matcher)).files.sort();
}

describe('checkpoints: the manuscript they track', () => {
  after(cleanupTmp);

  it('walks exactly the files the matcher accepts, reserved folders and the project file never', async () => {
    const root = book();
    for (const globs of [['**/*.md'], ['**'], ['*.md', '!drafts/**'], ['chapters/'], ['**/*', '!*.txt'], ['.obsidian/*.md', 'chapters/**/*.md']]) {
      const m = compileManuscript(globs).matcher;
      const expected = FILES.filter((f) => m.matches(f)).sort();
      assert.deepEqual(await walk(root, globs), expected, globs.join(' '));
      for (const f of expected) assert.ok(!/(^|\/)(\.git|\.worldline|\.vscode|node_modules)\//i.test(f) && f !== 'worldline.yaml', f);
    }
    assert.deepEqual(await walk(root, ['**']), [
      'a.md', 'Chapters/LOUD.MD', 'chapters/01.md', 'chapters/part 1/第一章.md', 'drafts/x.md', 'notes.txt', 'scripts/x.js',
    ].sort());
    assert.deepEqual(await walk(root, ['chapters/']), ['Chapters/LOUD.MD', 'chapters/01.md', 'chapters/part 1/第一章.md'].sort());
  });

  it('prunes folders that cannot hold a match, and only those', () => {
    const m = compileManuscript(['chapters/**/*.md']).matcher;
    assert.ok(m.mayContain('') && m.mayContain('chapters') && m.mayContain('CHAPTERS/part1'));
    assert.ok(!m.mayContain('research') && !m.mayContain('chapters/.trash'));
    const all = compileManuscript(['**/*.md']).matcher;
    assert.ok(all.mayContain('anything/deep'));
    for (const d of ['.obsidian', 'node_modules', '.worldline', 'sub/.worldline', '.vscode', '.GIT']) assert.ok(!all.mayContain(d), d);
    assert.ok(compileManuscript(['**/.drafts/*.md']).matcher.mayContain('a/.drafts'));
    assert.ok(compileManuscript(['{.drafts,chapters}/*.md']).matcher.mayContain('.drafts'));
  });

  it('a store opened with the config\'s matcher tracks what the agent may write', async () => {
    const root = book();
    const { config } = parseProjectConfig('manuscript: ["**/*.md", "!drafts/**"]\n');
    const repo = await ShadowRepo.open(root, { globs: config.manuscriptMatcher });
    assert.ok(repo instanceof ShadowRepo);
    const r = ok(await repo.checkpoint('t1', 's'));
    const tracked = Object.keys(filesAt(root, r.commit)).sort();
    assert.deepEqual(tracked, FILES.filter((f) => config.manuscriptMatcher.matches(f)).sort());
    assert.ok(!tracked.includes('worldline.yaml') && !tracked.includes('.vscode/settings.json') && !tracked.includes('drafts/x.md'));
  });

  it('refuses unusable globs with a message for the novelist', async () => {
    const root = book();
    for (const bad of [[], [''], ['!x.md'], ['../*.md'], ['/abs/*.md'], ['[z-a].md'], ['.git/**']]) {
      const r = await ShadowRepo.open(root, { globs: bad });
      assert.ok(!(r instanceof ShadowRepo) && /manuscript/.test(r.message), JSON.stringify(bad));
    }
    const repo = await openRepo(root);
    for (const bad of [['!x.md'], ['a.md', 'b/../c.md']]) {
      assert.throws(() => repo.setGlobs(bad), (e: unknown) => e instanceof CheckpointError && e.kind === 'badInput' && /manuscript/.test(e.message));
    }
    assert.ok(fs.existsSync(path.join(root, '.worldline', 'checkpoints.git')));
  });
});
