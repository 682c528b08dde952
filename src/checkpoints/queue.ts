// One queue per shadow repo path, shared by every ShadowRepo handle in this process: separate
// handles run their own git processes, and the index and refs must see one writer at a time.
// `generation` increases when the store is rebuilt, so older handles stop writing into it.
import * as path from 'node:path';
import { Stamps } from './refs';

interface Slot {
  tail: Promise<unknown>;
  generation: number;
  stamps: Stamps;
}

const slots = new Map<string, Slot>();

function keyOf(gitDir: string): string {
  const k = path.resolve(gitDir);
  return process.platform === 'win32' || process.platform === 'darwin' ? k.toLowerCase() : k;
}

function slot(gitDir: string): Slot {
  const k = keyOf(gitDir);
  let s = slots.get(k);
  if (!s) {
    s = { tail: Promise.resolve(), generation: 0, stamps: new Stamps() };
    slots.set(k, s);
  }
  return s;
}

/** Runs `fn` after every earlier task on the same repo has settled. */
export function enqueue<T>(gitDir: string, fn: () => Promise<T>): Promise<T> {
  const s = slot(gitDir);
  const run = s.tail.then(fn, fn);
  s.tail = run.catch(() => undefined);
  return run;
}

export function generationOf(gitDir: string): number {
  return slot(gitDir).generation;
}

export function bumpGeneration(gitDir: string): number {
  return ++slot(gitDir).generation;
}

/** The stamps of one store, shared by its handles (two handles never make the same ref name). */
export function stampsOf(gitDir: string): Stamps {
  return slot(gitDir).stamps;
}
