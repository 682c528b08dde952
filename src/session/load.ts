// Reads a session file (or a backup of one) into a parsed header and a settled tree index, line by
// line within the size limits. Shared by `Session.open` and the restore of a backup.

import { SessionError } from './errors';
import { formatBytes, openForLines, readLines } from './jsonl-lines';
import { SessionLimits } from './limits';
import { CorruptLine, ParsedSession, SessionParser } from './parse';
import { TreeIndex } from './tree-index';

export interface LoadedFile {
  parsed: ParsedSession;
  index: TreeIndex;
  /** The parser's damaged lines and the entries cut from the tree, by line. */
  corruptLines: CorruptLine[];
  /** The first per-entry warnings (orphans, navigations to unknown entries), by line. */
  entryWarnings: { line: number; text: string }[];
  /** How many more there were. */
  moreWarnings: number;
  /** Damaged lines and cut entries summed up in one report each instead of listed. */
  unlistedCorrupt: number;
}

/** Per-entry warnings kept from each source; a badly damaged file must not fill memory with them. */
const MAX_WARNINGS = 100;

/** Throws SessionError `not-found`, `not-a-file` or `too-large` (the file is never read whole). */
export async function loadSessionFile(file: string, fallbackId: string, limits: SessionLimits): Promise<LoadedFile> {
  const opened = await openForLines(file, limits.maxFileBytes);
  if (opened.kind === 'missing') {
    throw new SessionError('not-found', `The session file ${file} does not exist. It may have been moved or deleted.`);
  }
  if (opened.kind === 'not-a-file') {
    throw new SessionError('not-a-file', `${file} is not a regular file (a folder, pipe or device has its name), so it cannot be opened as a session.`);
  }
  if (opened.kind === 'too-large') throw tooLarge(file, `${formatBytes(opened.size)}, over the ${formatBytes(limits.maxFileBytes)} limit`);

  const index = new TreeIndex();
  const entryWarnings: { line: number; text: string }[] = [];
  let moreWarnings = 0;
  let parsed: ParsedSession;
  try {
    const parser = new SessionParser(
      { id: fallbackId, createdAt: new Date(opened.mtimeMs).toISOString() },
      (entry, line) => {
        if (index.size >= limits.maxEntries) throw tooLarge(file, `more than ${limits.maxEntries.toLocaleString('en-US')} entries`);
        const { error, warning } = index.add(entry, line);
        if (warning && entryWarnings.length < MAX_WARNINGS) entryWarnings.push({ line, text: warning });
        else if (warning) moreWarnings++;
        return error;
      },
      limits.maxLineBytes,
    );
    const read = await readLines(opened.handle, limits, (raw) => parser.line(raw));
    if (read.tooLarge === 'bytes') throw tooLarge(file, `it grew past the ${formatBytes(limits.maxFileBytes)} limit while being read`);
    if (read.tooLarge === 'lines') throw tooLarge(file, `more than ${limits.maxLines.toLocaleString('en-US')} lines`);
    parsed = parser.finish(read.bytes);
  } finally {
    await opened.handle.close();
  }

  const settled = index.settle();
  entryWarnings.push(...settled.warnings);
  entryWarnings.sort((a, b) => a.line - b.line);
  moreWarnings += settled.moreWarnings;
  const corruptLines =
    settled.cut.length === 0 ? parsed.corruptLines : [...parsed.corruptLines, ...settled.cut].sort((a, b) => a.line - b.line);
  return { parsed, index, corruptLines, entryWarnings, moreWarnings, unlistedCorrupt: parsed.unlistedCorrupt + settled.unlistedCut };
}

function tooLarge(file: string, why: string): SessionError {
  return new SessionError(
    'too-large',
    `The session file ${file} is too large to open (${why}). It is kept untouched. ` +
      'Start a new session to go on writing; this file can still be read with a text editor or split with another tool.',
  );
}
