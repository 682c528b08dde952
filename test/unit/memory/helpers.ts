// Shared helpers for the memory tests: temp folders, a real Session, turns that write prose
// through tool calls (the way the agent does), and a store + embedder pair.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChainEntry, NewChainEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { localEmbedder, type Embedder } from '../../../src/memory/embed';
import { MemoryStore } from '../../../src/memory/store';

const made: string[] = [];

export function tempDir(prefix = 'wl-memory-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const open: { close(): Promise<void> }[] = [];

/** Closes every session and store the helpers opened, then removes the temp folders. */
export async function cleanup(): Promise<void> {
  for (const x of open.splice(0)) await x.close();
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

export async function newSession(dir = tempDir()): Promise<Session> {
  const s = await Session.create(path.join(dir, 'sess1.jsonl'), { id: 'sess1', title: '雨夜' });
  open.push(s);
  return s;
}

export function user(text: string): NewChainEntry {
  return { type: 'user', text };
}

export function assistant(text: string, prose?: string, callId = `call_${Math.random().toString(36).slice(2, 8)}`): NewChainEntry {
  const e: NewChainEntry = { type: 'assistant', text, model: 'test-model', finish: 'stop' };
  if (prose !== undefined) e.toolCalls = [{ id: callId, name: 'append_file', arguments: JSON.stringify({ path: 'chapters/01.md', content: prose }) }];
  return e;
}

/** One full turn: instruction, a reply that appends prose, the tool result, a state entry. */
export async function turn(s: Session, instruction: string, prose: string, reply = '写好了。'): Promise<{ user: ChainEntry; reply: ChainEntry; last: ChainEntry }> {
  const u = await s.append(user(instruction));
  const callId = `call_${s.entryCount}`;
  const a = await s.append(assistant(reply, prose, callId));
  await s.append({ type: 'tool', callId, name: 'append_file', result: `Appended ${prose.length} characters to chapters/01.md.\n(ok)`, isError: false });
  const last = await s.append({ type: 'state', state: {}, by: 'scribe', warnings: [] });
  return { user: u, reply: a, last };
}

/** A pure path (no session) of `n` turns, for the plan. */
export function pathOfTurns(n: number, proseChars = 200): ChainEntry[] {
  const out: ChainEntry[] = [];
  let parent: string | null = null;
  const push = (e: NewChainEntry): void => {
    const id = `e${out.length}`;
    out.push({ ...e, id, parentId: parent, ts: '2025-01-01T00:00:00.000Z' } as ChainEntry);
    parent = id;
  };
  for (let t = 1; t <= n; t++) {
    push({ type: 'user', text: `第${t}轮指令` });
    push({ type: 'assistant', text: '好。', model: 'm', finish: 'stop', toolCalls: [{ id: `c${t}`, name: 'append_file', arguments: JSON.stringify({ path: 'a.md', content: '雨'.repeat(proseChars) }) }] });
    push({ type: 'tool', callId: `c${t}`, name: 'append_file', result: 'ok', isError: false });
    push({ type: 'state', state: {}, by: 'scribe', warnings: [] });
  }
  return out;
}

export async function openStore(dir: string, embedder: Embedder = localEmbedder(), readOnly = false): Promise<MemoryStore> {
  const r = await MemoryStore.open({ file: path.join(dir, 'memory', 'sess1.jsonl'), sessionId: 'sess1', embedder, readOnly });
  if (!r.ok) throw new Error(r.error.message);
  open.push(r.value.store);
  return r.value.store;
}

/** A tiny deterministic PRNG for generated stories. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
