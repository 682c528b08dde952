// Parsers for git's NUL-separated (-z) output. With -z, paths (spaces, Chinese, quotes, newlines)
// arrive byte-exact, never quoted.

export type FileStatus = 'A' | 'M' | 'D';

export interface RawDiffEntry {
  status: FileStatus;
  newMode: string;
  /** The object the path has on the new side (zeros when deleted). */
  newOid: string;
  path: string;
}

function records(out: string): string[] {
  const parts = out.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

/** `--name-status -z --no-renames`: "M\0path\0". Type changes count as modifications. */
export function parseNameStatus(out: string): { path: string; status: FileStatus }[] {
  const recs = records(out);
  const result: { path: string; status: FileStatus }[] = [];
  for (let i = 0; i + 1 < recs.length; i += 2) result.push({ path: recs[i + 1], status: toStatus(recs[i]) });
  return result;
}

/** Raw diff `-z --no-renames`: ":oldmode newmode oldsha newsha S\0path\0". */
export function parseRawDiff(out: string): RawDiffEntry[] {
  const recs = records(out);
  const result: RawDiffEntry[] = [];
  for (let i = 0; i + 1 < recs.length; i += 2) {
    const meta = recs[i].replace(/^:/, '').split(' ');
    result.push({ status: toStatus(meta[4] ?? 'M'), newMode: meta[1] ?? '', newOid: meta[3] ?? '', path: recs[i + 1] });
  }
  return result;
}

export function parseNames(out: string): string[] {
  return records(out);
}

function toStatus(s: string): FileStatus {
  const c = s[0];
  return c === 'A' ? 'A' : c === 'D' ? 'D' : 'M';
}
