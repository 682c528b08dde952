// Reads a session file (or a backup of one) into a parsed header and a settled tree index, line by
// line within the size limits. Shared by `Session.open` and the restore of a backup.

import { SessionError } from './errors';
import { LineReports, formatBytes, openForLines, readLines } from './jsonl-lines';
import { SessionLimits } from './limits';
import { CorruptLine, ParsedSession, SessionParser } from './parse';
import { StateCodec } from './stateCodec';
import { TreeIndex } from './tree-index';

export interface LoadedFile {
  parsed: ParsedSession;
  index: TreeIndex;
  /** How the file's state entries are stored; it goes on encoding the session's writes. */
  codec: StateCodec;
  /** The parser's damaged lines, the entries cut from the tree and the states that could not be rebuilt, by line. */
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
  // Made when the first entry comes, after line 1 set the version.
  let codec: StateCodec | undefined;
  const lostStates = new LineReports();
  const entryWarnings: { line: number; text: string }[] = [];
  let moreWarnings = 0;
  let parsed: ParsedSession;
  try {
    const parser: SessionParser = new SessionParser(
      { id: fallbackId, createdAt: new Date(opened.mtimeMs).toISOString() },
      (stored, line) => {
        if (index.size >= limits.maxEntries) throw tooLarge(file, `more than ${limits.maxEntries.toLocaleString('en-US')} entries`);
        codec ??= new StateCodec(parser.formatVersion, index);
        const { entry, problem } = codec.decode(stored);
        const { error, warning } = index.add(entry, line);
        if (error) return error;
        codec.remember(stored, problem === undefined);
        if (problem) lostStates.add(line, problem);
        if (warning && entryWarnings.length < MAX_WARNINGS) entryWarnings.push({ line, text: warning });
        else if (warning) moreWarnings++;
        return undefined;
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
  const unlistedLost = lostStates.hidden;
  const lost = lostStates.finish('scene states that could not be rebuilt');
  const corruptLines =
    settled.cut.length === 0 && lost.length === 0
      ? parsed.corruptLines
      : [...parsed.corruptLines, ...settled.cut, ...lost].sort((a, b) => a.line - b.line);
  return {
    parsed,
    index,
    codec: codec ?? new StateCodec(parsed.header.version, index),
    corruptLines,
    entryWarnings,
    moreWarnings,
    unlistedCorrupt: parsed.unlistedCorrupt + settled.unlistedCut + unlistedLost,
  };
}

function tooLarge(file: string, why: string): SessionError {
  return new SessionError(
    'too-large',
    `The session file ${file} is too large to open (${why}). It is kept untouched. ` +
      'Start a new session to go on writing; this file can still be read with a text editor or split with another tool.',
  );
}
