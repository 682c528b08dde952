// A quick look at a session file for listings, without building the tree: the header, the
// current title (the latest title label) and the number of entry lines. Label lines are found by
// a byte search, so a large session costs one read and no full parse.

import { SessionHeader } from './entries';
import { checkHeader } from './validate';

export interface SessionScan {
  header: SessionHeader | undefined;
  title: string | undefined;
  entryLines: number;
}

const NEWLINE = 0x0a;
const LABEL_NEEDLE = Buffer.from('"label"');

export function scanSessionBuffer(buf: Buffer): SessionScan {
  const firstEnd = buf.indexOf(NEWLINE);
  const headerEnd = firstEnd === -1 ? buf.length : firstEnd;
  const header = parseHeader(buf.toString('utf8', 0, headerEnd));

  let lines = 0;
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, i + 1)) lines++;
  if (buf.length > 0 && buf[buf.length - 1] !== NEWLINE) lines++;
  const entryLines = Math.max(0, lines - 1);

  let title = header?.title;
  if (header) {
    let latest: string | undefined;
    let lastLineStart = -1;
    for (let hit = buf.indexOf(LABEL_NEEDLE, headerEnd); hit !== -1; hit = buf.indexOf(LABEL_NEEDLE, hit + 1)) {
      const lineStart = buf.lastIndexOf(NEWLINE, hit) + 1;
      if (lineStart === lastLineStart) continue; // "label" twice in one line (type and key)
      lastLineStart = lineStart;
      const end = buf.indexOf(NEWLINE, hit);
      const label = titleLabel(buf.toString('utf8', lineStart, end === -1 ? buf.length : end), header.id);
      if (label !== undefined) latest = label;
    }
    if (latest) title = latest;
  }
  return { header, title, entryLines };
}

function parseHeader(text: string): SessionHeader | undefined {
  try {
    const checked = checkHeader(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    return checked.kind === 'header' ? checked.header : undefined;
  } catch {
    return undefined;
  }
}

function titleLabel(line: string, headerId: string): string | undefined {
  try {
    const v = JSON.parse(line) as Record<string, unknown>;
    return v && v.type === 'label' && v.targetId === headerId && typeof v.label === 'string' ? v.label : undefined;
  } catch {
    return undefined;
  }
}
