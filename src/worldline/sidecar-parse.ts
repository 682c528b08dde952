// Text of `.worldline/worldlines.json` → data and a list of problems. Never throws: a damaged
// sidecar costs the novelist some renames, never the extension. What is well-formed is kept.

import { SIDECAR_VERSION, WorldlineSidecar, WorldlinesFile, emptyWorldlinesFile } from './sidecar-data';

export type SidecarParse =
  | { status: 'ok'; data: WorldlinesFile; problems: [] }
  /** Read, but parts (or all) were unusable; those parts are left out. */
  | { status: 'damaged'; data: WorldlinesFile; problems: string[] }
  /** Written by a newer Worldline: read as empty and must not be overwritten. */
  | { status: 'newer-version'; data: WorldlinesFile; problems: string[] };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function names(v: unknown, where: string, problems: string[]): Record<string, string> {
  if (v === undefined) return {};
  if (!isRecord(v)) {
    problems.push(`${where} is not a map of id → name; it was ignored.`);
    return {};
  }
  const kept = Object.entries(v).filter(([, name]) => typeof name === 'string' && name.trim() !== '');
  if (kept.length < Object.keys(v).length) problems.push(`${where}: ${Object.keys(v).length - kept.length} name(s) that were not text were ignored.`);
  return Object.fromEntries(kept) as Record<string, string>;
}

function ids(v: unknown, where: string, problems: string[]): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    problems.push(`${where} is not a list of save ids; it was ignored.`);
    return [];
  }
  const kept = v.filter((x): x is string => typeof x === 'string');
  if (kept.length < v.length) problems.push(`${where}: ${v.length - kept.length} entries that were not save ids were ignored.`);
  return [...new Set(kept)];
}

function session(v: unknown, id: string, problems: string[]): WorldlineSidecar | undefined {
  if (!isRecord(v)) {
    problems.push(`The entry for session ${id} is not an object; it was ignored.`);
    return undefined;
  }
  return {
    worldlineNames: names(v.worldlineNames, `Session ${id}: worldlineNames`, problems),
    saveNames: names(v.saveNames, `Session ${id}: saveNames`, problems),
    deletedSaveIds: ids(v.deletedSaveIds, `Session ${id}: deletedSaveIds`, problems),
  };
}

export function parseSidecar(text: string): SidecarParse {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // an editor may add a BOM
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (e) {
    return { status: 'damaged', data: emptyWorldlinesFile(), problems: [`It is not valid JSON (${(e as Error).message}).`] };
  }
  if (!isRecord(raw)) return { status: 'damaged', data: emptyWorldlinesFile(), problems: ['It is not a JSON object.'] };
  if (typeof raw.version === 'number' && raw.version > SIDECAR_VERSION) {
    return {
      status: 'newer-version',
      data: emptyWorldlinesFile(),
      problems: [`It was written by a newer version of Worldline (format ${raw.version}). Update the extension to see these renames.`],
    };
  }
  const problems: string[] = [];
  if (raw.version !== SIDECAR_VERSION) problems.push(`Its "version" should be ${SIDECAR_VERSION}.`);
  const sessions: [string, WorldlineSidecar][] = [];
  if (!isRecord(raw.sessions)) {
    problems.push('It has no "sessions" map.');
  } else {
    for (const [id, v] of Object.entries(raw.sessions)) {
      const s = session(v, id, problems);
      if (s) sessions.push([id, s]);
    }
  }
  const data: WorldlinesFile = { version: SIDECAR_VERSION, sessions: Object.fromEntries(sessions) };
  return problems.length === 0 ? { status: 'ok', data, problems: [] } : { status: 'damaged', data, problems };
}

/** Stable, readable JSON: the novelist may look at it or keep it in their own git. */
export function serializeSidecar(data: WorldlinesFile): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}
