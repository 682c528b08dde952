// A small PNG reader that finds the text chunks (tEXt, iTXt, zTXt) a character card keeps its JSON
// in. Hostile input is expected: every length is bounds-checked before it is used, sizes are capped,
// and a bad file gives an error value a novelist can act on, never an exception.
import { inflateSync } from 'node:zlib';
import type { Text } from '../common/text';

const l10n = { t: (s: string): string => s };

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** A card's JSON (with an embedded book and base64) is well under this; more is a mistake or an attack. */
export const MAX_TEXT_CHUNK_BYTES = 32 * 1024 * 1024;
/** What a compressed text chunk may inflate to. */
const MAX_INFLATED_BYTES = 32 * 1024 * 1024;
/** The PNG spec's own limit on one chunk's length. */
const MAX_CHUNK_LENGTH = 0x7fffffff;

export interface PngTextChunk {
  readonly keyword: string;
  readonly text: string;
}

export type PngTextResult =
  | { readonly ok: true; readonly chunks: readonly PngTextChunk[]; readonly problems: readonly Text[] }
  | { readonly ok: false; readonly error: Text };

const text = (message: string, ...args: (string | number)[]): Text => ({ message, args });

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array, start: number, end: number): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads every text chunk of a PNG; chunks after IEND and chunks of other types are ignored. */
export function readPngTextChunks(bytes: Uint8Array): PngTextResult {
  if (bytes.length < SIGNATURE.length || SIGNATURE.some((b, i) => bytes[i] !== b)) {
    return { ok: false, error: text(l10n.t('This is not a PNG image (its first bytes are not the PNG signature).')) };
  }
  const chunks: PngTextChunk[] = [];
  const problems: Text[] = [];
  let at = SIGNATURE.length;
  let sawEnd = false;
  while (at < bytes.length) {
    if (bytes.length - at < 12) return { ok: false, error: text(l10n.t('The PNG image is cut short at byte {0}.'), at) };
    const length = u32(bytes, at);
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    if (!/^[A-Za-z]{4}$/.test(type)) return { ok: false, error: text(l10n.t('The PNG image is damaged: a chunk at byte {0} has no valid type.'), at) };
    if (length > MAX_CHUNK_LENGTH || length > bytes.length - at - 12) {
      return { ok: false, error: text(l10n.t('The PNG image is damaged: the chunk "{0}" at byte {1} runs past the end of the file.'), type, at) };
    }
    const dataStart = at + 8;
    const dataEnd = dataStart + length;
    if (type === 'tEXt' || type === 'iTXt' || type === 'zTXt') {
      if (length > MAX_TEXT_CHUNK_BYTES) {
        problems.push(text(l10n.t('A text chunk of {0} bytes is too large to read; it was skipped.'), length));
      } else if (crc32(bytes, at + 4, dataEnd) !== u32(bytes, dataEnd)) {
        problems.push(text(l10n.t('The text chunk at byte {0} is damaged (its checksum does not match); it was skipped.'), at));
      } else {
        const read = readTextChunk(type, bytes.subarray(dataStart, dataEnd));
        if ('keyword' in read) chunks.push(read);
        else problems.push(read);
      }
    }
    at = dataEnd + 4;
    if (type === 'IEND') {
      sawEnd = true;
      break;
    }
  }
  if (!sawEnd) problems.push(text(l10n.t('The PNG image has no end marker; it may be cut short.')));
  return { ok: true, chunks, problems };
}

function readTextChunk(type: string, data: Uint8Array): PngTextChunk | Text {
  const nul = data.indexOf(0);
  if (nul < 1 || nul > 79) return text(l10n.t('A text chunk has no valid keyword; it was skipped.'));
  const keyword = latin1.decode(data.subarray(0, nul));
  try {
    if (type === 'tEXt') return { keyword, text: latin1.decode(data.subarray(nul + 1)) };
    if (type === 'zTXt') return { keyword, text: latin1.decode(inflate(data.subarray(nul + 2))) };
    // iTXt: keyword \0 flag method language \0 translated keyword \0 UTF-8 text
    const flag = data[nul + 1];
    const langEnd = data.indexOf(0, nul + 3);
    const transEnd = langEnd < 0 ? -1 : data.indexOf(0, langEnd + 1);
    if (flag === undefined || transEnd < 0) return text(l10n.t('The text chunk "{0}" is damaged; it was skipped.'), keyword);
    const body = data.subarray(transEnd + 1);
    return { keyword, text: utf8.decode(flag === 1 ? inflate(body) : body) };
  } catch {
    return text(l10n.t('The text chunk "{0}" is damaged; it was skipped.'), keyword);
  }
}

function inflate(data: Uint8Array): Uint8Array {
  return inflateSync(data, { maxOutputLength: MAX_INFLATED_BYTES });
}
