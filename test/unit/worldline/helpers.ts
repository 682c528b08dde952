// Test helpers for saves and worldlines: temp folders, real sessions with a ticking clock, a story
// turn as the agent writes it, a save as the extension writes it, and a tiny in-memory tree.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ProjectLanguage } from '../../../src/project/config';
import type { Clock } from '../../../src/session/clock';
import type { ChainEntry, Entry, SaveEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { planNewSave } from '../../../src/worldline/plan';
import type { SaveTree } from '../../../src/worldline/saves';
import type { WorldlineSidecar } from '../../../src/worldline/sidecar-data';

const made: string[] = [];

export function tempDir(prefix = 'wl-worldline-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** One second later on every reading: entries get distinct, increasing times. */
export class TickClock implements Clock {
  constructor(public t = Date.UTC(2025, 2, 1, 12, 0, 0, 0)) {}
  now(): number {
    this.t += 1000;
    return this.t;
  }
}

let sessionCount = 0;

export async function newSession(title = '雨夜'): Promise<Session> {
  const id = `s${++sessionCount}`;
  return Session.create(path.join(tempDir(), `${id}.jsonl`), { id, title }, { clock: new TickClock() });
}

/** A turn as the agent loop writes it: instruction, reply, checkpoint, scene state. */
export async function turn(session: Session, instruction: string, reply: string): Promise<ChainEntry> {
  await session.append({ type: 'user', text: instruction });
  await session.append({ type: 'assistant', text: reply, model: 'test-model', finish: 'stop' });
  await session.append({ type: 'checkpoint', commit: `c${session.entryCount}`, ref: `refs/worldline/t${session.entryCount}`, changed: ['chapters/01.md'] });
  return session.append({ type: 'state', state: { time: '雨夜' }, by: 'scribe', warnings: [] });
}

/** What the extension does after the scribe: plan at the current leaf, then append. */
export async function save(session: Session, name: string, lang: ProjectLanguage = 'zh', sidecar?: WorldlineSidecar): Promise<SaveEntry> {
  const planned = planNewSave({ name, lang, tree: session, ...(sidecar ? { sidecar } : {}) });
  return (await session.append(planned)) as SaveEntry;
}

/** A minimal tree that mirrors the SaveTree interface, for fast property runs. */
export class MemoryTree implements SaveTree {
  readonly list: Entry[] = [];
  private readonly byId = new Map<string, Entry>();
  leafId: string | null = null;

  add(entry: Entry): void {
    this.list.push(entry);
    this.byId.set(entry.id, entry);
    this.leafId = entry.id;
  }

  entries(): readonly Entry[] {
    return this.list;
  }

  path(leafId: string | null = this.leafId): ChainEntry[] {
    const out: ChainEntry[] = [];
    for (let id = leafId; id !== null; ) {
      const e = this.byId.get(id) as ChainEntry;
      out.push(e);
      id = e.parentId;
    }
    return out.reverse();
  }

  isAncestorOrSelf(ancestorId: string | null, id: string | null): boolean {
    if (ancestorId === null) return true;
    for (let cur = id; cur !== null; cur = (this.byId.get(cur) as Entry).parentId) if (cur === ancestorId) return true;
    return false;
  }

  /** Every entry below `id`, by walking children (independent of isAncestorOrSelf). */
  descendantsOf(id: string): Set<string> {
    const out = new Set<string>();
    const stack = [id];
    while (stack.length > 0) {
      const cur = stack.pop() as string;
      for (const e of this.list) {
        if (e.parentId === cur && !out.has(e.id)) {
          out.add(e.id);
          stack.push(e.id);
        }
      }
    }
    return out;
  }
}
