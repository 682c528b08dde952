// Shapes shared by the memory modules: results as values, the text view of a branch, rows.
import type { ChainEntry } from '../session/entries';
import type { Vector } from './vector';

export type Lang = 'zh' | 'en';

export type MemoryErrorKind = 'embed' | 'io' | 'embedder-mismatch' | 'closed' | 'read-only';

/** A failure the caller can show as is: the message says what happened and what to do. */
export interface MemoryError {
  kind: MemoryErrorKind;
  message: string;
}

export type Result<T, E = MemoryError> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(kind: MemoryErrorKind, message: string): { ok: false; error: MemoryError } {
  return { ok: false, error: { kind, message } };
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * How the branch reads: texts with edits applied, hidden messages left out. `Session` provides
 * both (`textOf(id)`, `isHidden(id)`); see `sessionTextView`.
 */
export interface TextView {
  textOf(entry: ChainEntry): string;
  isHidden(id: string): boolean;
}

/** Raw texts, nothing hidden: for tests and for callers without side entries. */
export const RAW_VIEW: TextView = {
  textOf: (e) => (e.type === 'user' || e.type === 'assistant' || e.type === 'summary' ? e.text : e.type === 'tool' ? e.result : ''),
  isHidden: () => false,
};

/** Adapts anything shaped like `Session` to a TextView. */
export function sessionTextView(session: { textOf(id: string): string; isHidden(id: string): boolean }): TextView {
  return { textOf: (e) => session.textOf(e.id), isHidden: (id) => session.isHidden(id) };
}

/** Where a piece of archived text came from: the instruction, the agent's reply, or prose it wrote. */
export type SourceRole = 'user' | 'assistant' | 'prose';

/** One piece of story text, tagged with the tree node it belongs to. */
export interface SourceText {
  nodeId: string;
  role: SourceRole;
  text: string;
}

/** A stored memory row. `vector` is undefined until (re-)embedded with the store's embedder. */
export interface MemoryRow {
  /** Position in the file's row order: archive order, which is story order along a branch. */
  seq: number;
  nodeId: string;
  role: SourceRole;
  text: string;
  vector: Vector | undefined;
}
