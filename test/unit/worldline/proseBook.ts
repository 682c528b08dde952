// A book with real prose for the tests that read the manuscript at a save: a temp folder, a real
// checkpoint store (git), a real session, and turns written as the extension writes them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ShadowRepo } from '../../../src/checkpoints';
import type { CheckpointEntry, SaveEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import { planNewSave } from '../../../src/worldline/plan';
import { ok, openRepo, tmpDir, write } from '../checkpoints/helpers';

export class ProseBook {
  private constructor(readonly root: string, readonly repo: ShadowRepo, readonly session: Session) {}

  static async open(): Promise<ProseBook> {
    const root = tmpDir('wl-atsave-');
    write(root, 'chapters/01.md', '# 第一章\n\n雨夜。\n');
    fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
    const repo = await openRepo(root);
    const session = await Session.create(path.join(root, '.worldline', 'sessions', 's1.jsonl'), { id: 's1', title: '雨夜' });
    return new ProseBook(root, repo, session);
  }

  write(rel: string, text: string): void {
    write(this.root, rel, text);
  }

  /** Instruction, the prose `files` written, reply, checkpoint, the scribe's state at `time`. */
  async turn(instruction: string, files: Record<string, string>, time = instruction): Promise<CheckpointEntry> {
    const user = await this.session.append({ type: 'user', text: instruction });
    for (const [rel, text] of Object.entries(files)) this.write(rel, text);
    await this.session.append({ type: 'assistant', text: '写好了。', model: 'test-model', finish: 'stop' });
    const made = ok(await this.repo.checkpoint(user.id, this.session.header.id));
    const checkpoint = (await this.session.append({ type: 'checkpoint', commit: made.commit, ref: made.ref, changed: made.changed })) as CheckpointEntry;
    await this.session.append({ type: 'state', state: openingState({ time, location: '客栈' }), by: 'scribe', warnings: [] });
    return checkpoint;
  }

  async save(name: string): Promise<SaveEntry> {
    return (await this.session.append(planNewSave({ name, lang: 'zh', tree: this.session }))) as SaveEntry;
  }

  async close(): Promise<void> {
    await this.session.close();
  }
}
