// Entry ids are short (8 hex chars, as pi does) and checked against the ids already in the
// session; session ids are longer because they also name files shared across machines.

import { randomBytes } from 'node:crypto';

const ENTRY_ID_BYTES = 4;
const SESSION_ID_BYTES = 8;

export function newEntryId(taken: (id: string) => boolean): string {
  for (let attempt = 0; attempt < 32; attempt++) {
    const id = randomBytes(ENTRY_ID_BYTES).toString('hex');
    if (!taken(id)) return id;
  }
  // Practically unreachable; a longer id cannot collide with the 8-char ones.
  let id: string;
  do id = randomBytes(SESSION_ID_BYTES).toString('hex');
  while (taken(id));
  return id;
}

export function newSessionId(): string {
  return randomBytes(SESSION_ID_BYTES).toString('hex');
}

/**
 * Session ids become file names: only characters that are safe everywhere. No "_": backup names
 * use it to separate the title, the session id and the time.
 */
export function isValidSessionId(id: string): boolean {
  return /^[A-Za-z0-9-]{1,64}$/.test(id);
}
