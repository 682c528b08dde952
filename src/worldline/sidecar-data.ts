// The sidecar's data and its pure updates. Renames and soft deletes cannot be tree entries:
// appending anything moves the leaf (DESIGN.md, "Saves and worldlines").
//
// One file, `.worldline/worldlines.json`, holds every session of the novel, keyed by session id
// (the design names one file; copying the folder copies it).

import type { SaveEntry } from '../session/entries';
import { cleanName } from './names';

export const SIDECAR_VERSION = 1;

/** One session's renames and soft deletes. */
export interface WorldlineSidecar {
  /** worldlineId → display name. Entries keep the original name; the view shows this one. */
  worldlineNames: Record<string, string>;
  /** saveId → display name. */
  saveNames: Record<string, string>;
  /** Hidden in the view; the entries stay in the tree and can be restored. */
  deletedSaveIds: string[];
}

/** The whole file. */
export interface WorldlinesFile {
  version: typeof SIDECAR_VERSION;
  sessions: Record<string, WorldlineSidecar>;
}

export function emptySidecar(): WorldlineSidecar {
  return { worldlineNames: {}, saveNames: {}, deletedSaveIds: [] };
}

export function emptyWorldlinesFile(): WorldlinesFile {
  return { version: SIDECAR_VERSION, sessions: {} };
}

/** Own properties only: a key such as "constructor" must not find Object.prototype's. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

export function isEmptySidecar(s: WorldlineSidecar): boolean {
  return Object.keys(s.worldlineNames).length === 0 && Object.keys(s.saveNames).length === 0 && s.deletedSaveIds.length === 0;
}

export function sidecarFor(file: WorldlinesFile, sessionId: string): WorldlineSidecar {
  return ownValue(file.sessions, sessionId) ?? emptySidecar();
}

/** A copy of `file` with this session's sidecar replaced; an empty one is dropped to keep the file small. */
export function withSidecar(file: WorldlinesFile, sessionId: string, sidecar: WorldlineSidecar): WorldlinesFile {
  const sessions = Object.entries(file.sessions).filter(([id]) => id !== sessionId);
  if (!isEmptySidecar(sidecar)) sessions.push([sessionId, sidecar]);
  // fromEntries defines own properties, so even a "__proto__" key stays plain data.
  return { version: SIDECAR_VERSION, sessions: Object.fromEntries(sessions) };
}

function withName(names: Record<string, string>, id: string, name: string): Record<string, string> {
  const rest = Object.entries(names).filter(([k]) => k !== id);
  const clean = cleanName(name);
  if (clean !== '') rest.push([id, clean]);
  return Object.fromEntries(rest);
}

/** Renames a worldline for display. A blank name clears the rename (back to the original). */
export function renameWorldline(s: WorldlineSidecar, worldlineId: string, name: string): WorldlineSidecar {
  return { ...s, worldlineNames: withName(s.worldlineNames, worldlineId, name) };
}

/** Renames a save for display. A blank name clears the rename. */
export function renameSave(s: WorldlineSidecar, saveId: string, name: string): WorldlineSidecar {
  return { ...s, saveNames: withName(s.saveNames, saveId, name) };
}

/** Soft-deletes a save: hidden from the view, still in the tree. Idempotent. */
export function deleteSave(s: WorldlineSidecar, saveId: string): WorldlineSidecar {
  return s.deletedSaveIds.includes(saveId) ? s : { ...s, deletedSaveIds: [...s.deletedSaveIds, saveId] };
}

/** Undoes a soft delete. Idempotent. */
export function restoreSave(s: WorldlineSidecar, saveId: string): WorldlineSidecar {
  return s.deletedSaveIds.includes(saveId) ? { ...s, deletedSaveIds: s.deletedSaveIds.filter((id) => id !== saveId) } : s;
}

export function displaySaveName(s: WorldlineSidecar, save: Pick<SaveEntry, 'saveId' | 'name'>): string {
  return ownValue(s.saveNames, save.saveId) ?? save.name;
}

export function displayWorldlineName(s: WorldlineSidecar, worldlineId: string, originalName: string): string {
  return ownValue(s.worldlineNames, worldlineId) ?? originalName;
}
