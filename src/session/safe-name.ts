// File-name pieces that are safe on every OS: only ASCII letters, digits, "-" and "_" (no dots, so
// no Windows device name like "CON.x" and no trailing dot or space), length-capped. A title that
// loses characters to this (any non-ASCII, e.g. Chinese) gets a short hash of the full title, so
// different titles stay distinguishable (SillyTavern #5780: CJK names all collapsed to "chat___").

import { createHash } from 'node:crypto';

const MAX_SAFE_TITLE = 40;

export function safeTitle(title: string): string {
  const normalized = title.normalize('NFC');
  const base =
    normalized
      .replace(/[^A-Za-z0-9-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, MAX_SAFE_TITLE)
      .replace(/-+$/, '') || 'session';
  return isPrintableAscii(normalized) ? base : `${base}-${shortHash(normalized)}`;
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

function isPrintableAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}
