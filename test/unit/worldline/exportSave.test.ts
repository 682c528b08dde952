// Export Worldline as Manuscript over a real checkpoint store: the book as it stood at the save,
// whatever the folder holds now; renamed names; a save without prose exports nothing.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { planNewSave } from '../../../src/worldline/plan';
import { exportSave, manuscriptAt, safeFileName } from '../../../src/worldline/exportSave';
import { emptySidecar, renameSave, renameWorldline } from '../../../src/worldline/sidecar-data';
import type { SaveEntry } from '../../../src/session/entries';
import { cleanupTmp } from '../checkpoints/helpers';
import { ProseBook } from './proseBook';

describe('export a save', () => {
  afterEach(cleanupTmp);

  it('exports the prose at the save, not the prose on disk now, in reading order', async () => {
    const book = await ProseBook.open();
    const first = await book.turn('写第一章', { 'chapters/01.md': '# 第一章\n\n雨夜，客栈。\n' });
    await book.turn('写第二章', { 'chapters/2.md': '她推门进来。\n', 'chapters/10.md': '# 第十章\n\n天亮了。\n' });
    const saved = await book.save('天亮');
    book.write('chapters/01.md', '# 第一章\n\n后来改过的一句。\n');
    fs.rmSync(path.join(book.root, 'chapters', '10.md'));
    const made = await exportSave({ tree: book.session, sidecar: emptySidecar(), save: saved, repo: book.repo, title: '', folderName: '我的书', lang: 'zh' });
    assert.ok(made.ok);
    assert.equal(made.files, 3);
    assert.equal(made.worldlineName, '主线');
    assert.match(made.markdown, /^# 我的书\n/, 'the folder names a book without a title');
    assert.ok(made.markdown.includes('雨夜，客栈。') && !made.markdown.includes('后来改过'), 'the prose at the save');
    const order = ['雨夜，客栈。', '她推门进来。', '天亮了。'].map((t) => made.markdown.indexOf(t));
    assert.deepEqual([...order].sort((a, b) => a - b), order, '"2" before "10"');
    assert.equal(made.fileName, 'novel-主线-天亮.md');
    assert.deepEqual(await manuscriptAt(book.repo, first.commit), [{ path: 'chapters/01.md', text: '# 第一章\n\n雨夜，客栈。\n' }]);
    await book.close();
  });

  it('uses the renamed line and save names, and a safe file name', async () => {
    const book = await ProseBook.open();
    await book.turn('写', { 'chapters/01.md': '雨。\n' });
    const saved = await book.save('雨夜');
    const sidecar = renameSave(renameWorldline(emptySidecar(), saved.worldlineId, '雨/线'), saved.saveId, '问: 名?');
    const made = await exportSave({ tree: book.session, sidecar, save: saved, repo: book.repo, title: '听雨', folderName: 'x', lang: 'en' });
    assert.ok(made.ok);
    assert.equal(made.worldlineName, '雨/线');
    assert.equal(made.saveName, '问: 名?');
    assert.match(made.markdown, /^# 听雨\n/);
    assert.equal(made.fileName, '听雨-雨_线-问_ 名_.md');
    assert.equal(safeFileName('  \u0001  '), '_');
    assert.equal(safeFileName('   '), 'export');
    await book.close();
  });

  it('a save without a checkpoint, or without a store, has nothing to export', async () => {
    const book = await ProseBook.open();
    await book.session.append({ type: 'user', text: '开场' });
    const bare = (await book.session.append(planNewSave({ name: '开场', lang: 'zh', tree: book.session }))) as SaveEntry;
    assert.deepEqual(await exportSave({ tree: book.session, sidecar: emptySidecar(), save: bare, repo: book.repo, title: '', folderName: 'x', lang: 'zh' }), { ok: false, reason: 'no-checkpoint' });
    await book.turn('写', { 'chapters/01.md': '雨。\n' });
    const saved = await book.save('雨');
    assert.deepEqual(await exportSave({ tree: book.session, sidecar: emptySidecar(), save: saved, repo: undefined, title: '', folderName: 'x', lang: 'zh' }), { ok: false, reason: 'no-checkpoint' });
    await book.close();
  });
});
