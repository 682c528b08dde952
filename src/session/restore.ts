// Turns a loaded session backup into the lines of a new session: a new id and header titled
// "<title> (restored <local date>)", every entry kept with its id (memory rows and checkpoints
// refer to entry ids), the old title labels dropped (the title is in the new header), damaged
// lines and entries cut from the tree left out. Pure: the library reads the backup and writes the
// result.

import { Entry, SESSION_FORMAT_VERSION, SessionHeader } from './entries';
import { SessionError } from './errors';
import { ParsedSession } from './parse';
import { StateCodec } from './stateCodec';
import { TreeIndex } from './tree-index';

export function restoredSession(
  loaded: { parsed: ParsedSession; index: TreeIndex },
  init: { backupName: string; newId: string; now: number },
): { lines: Iterable<string>; title: string } {
  const { parsed, index } = loaded;
  if (parsed.headerRecovered && index.size === 0) {
    throw new SessionError('invalid-backup', `${init.backupName} is not a Worldline session backup.`);
  }
  const createdAt = new Date(init.now).toISOString();
  const oldId = parsed.header.id;
  const title = `${index.side(oldId, 'label')?.label || parsed.header.title} (restored ${localDateTime(init.now)})`;
  const header: SessionHeader = { type: 'session', version: SESSION_FORMAT_VERSION, id: init.newId, createdAt, title };
  const keep = (e: Entry) => !(e.type === 'label' && e.targetId === oldId);
  function* lines(): Generator<string> {
    yield JSON.stringify(header);
    // Written in the current format: states as patches, whatever the backup's version.
    const codec = new StateCodec(header.version, index);
    for (const e of index.all()) {
      if (!keep(e)) continue;
      const stored = codec.encode(e);
      codec.remember(stored, true);
      yield JSON.stringify(stored);
    }
  }
  return { lines: lines(), title };
}

/** "2025-03-01 14:05" in local time: what the novelist reads in the restored session's title. */
export function localDateTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
