// Where a new entry's file goes, and a rename of the entry inside its file. The path is
// `<codex folder>/<kind folder>/<name>.md`; the name is made safe as a file name on every system
// (no separators, no reserved characters, no trailing dots or spaces, not too long).
import type { Text } from '../common/text';
import type { CodexKind } from './types';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

const KIND_FOLDERS: Readonly<Record<CodexKind, string>> = {
  character: 'characters', place: 'places', item: 'items', faction: 'factions', rule: 'rules', style: 'style',
};

export function kindFolder(kind: CodexKind): string {
  return KIND_FOLDERS[kind];
}

const UNSAFE = /[\u0000-\u001f\u007f<>:"/\\|?*]+/gu;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/iu;
const MAX_NAME = 80;

/** A file name (without `.md`) for an entry's name; never empty. */
export function entryFileName(name: string): string {
  let s = name.normalize('NFC').replace(UNSAFE, '-').replace(/\s+/gu, ' ').trim();
  s = [...s].slice(0, MAX_NAME).join('');
  s = s.replace(/[. ]+$/u, '').replace(/^[. ]+/u, '');
  if (s === '' || /^-+$/u.test(s)) s = 'entry';
  if (WINDOWS_RESERVED.test(s)) s = `${s}-entry`;
  return s;
}

/** The POSIX path, relative to the book folder, of a new entry's file. */
export function entryPath(folder: string, kind: CodexKind, name: string): string {
  const base = folder.replace(/\\/gu, '/').replace(/\/+$/u, '') || 'codex';
  return `${base}/${kindFolder(kind)}/${entryFileName(name)}.md`;
}

/** The path of a renamed entry's file: the same folder, the new name. */
export function renamedPath(path: string, name: string): string {
  const slash = path.lastIndexOf('/');
  return `${slash < 0 ? '' : path.slice(0, slash + 1)}${entryFileName(name)}.md`;
}

/** The codex folder of a project config (worldline.yaml `codex:`, default `codex`). */
export function codexFolderOf(config: object): string {
  const v = (config as { codex?: unknown }).codex;
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : 'codex';
}

/** The `n`th other path for a file whose path is in use: `name-2.md`, `name-3.md`, … */
export function numberedPath(path: string, n: number): string {
  return `${path.replace(/\.md$/u, '')}-${n}.md`;
}

export type RenameResult = { ok: true; text: string } | { ok: false; error: Text };

/**
 * The file's text with its front matter's `name:` set to `name`, everything else as the novelist
 * wrote it. The name is written as a double-quoted YAML scalar (JSON's escapes are YAML's).
 */
export function renamedFrontMatter(text: string, name: string): RenameResult {
  const lines = text.split('\n');
  if ((lines[0] ?? '').replace(/\r$/u, '').trim() !== '---') return { ok: false, error: l10n.t('The file has no front matter (a first line "---").') };
  const quoted = JSON.stringify(name.trim());
  const close = lines.findIndex((l, i) => i > 0 && (l.replace(/\r$/u, '').trim() === '---' || l.replace(/\r$/u, '').trim() === '...'));
  if (close < 0) return { ok: false, error: l10n.t('The front matter is not closed (no second "---" line).') };
  const at = lines.findIndex((l, i) => i > 0 && i < close && /^name\s*:/u.test(l));
  if (at < 0) lines.splice(close, 0, `name: ${quoted}`);
  else lines[at] = `name: ${quoted}${(lines[at] ?? '').endsWith('\r') ? '\r' : ''}`;
  return { ok: true, text: lines.join('\n') };
}
