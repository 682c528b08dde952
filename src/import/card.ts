// SillyTavern character cards: V1 JSON (fields at the top level), V2 (`spec: chara_card_v2`,
// fields under `data`), V3 (`spec: chara_card_v3`), and PNG images carrying the JSON base64-encoded
// in a `chara` (V2) or `ccv3` (V3) text chunk. When a PNG has both, V3 wins (it is the newer
// writing of the same card); a damaged V3 chunk falls back to the V2 one, and the report says so.
import type { Text } from '../common/text';
import { readPngTextChunks } from './pngText';

const l10n = { t: (s: string): string => s };

export type CardVersion = 'v1' | 'v2' | 'v3';

export interface Card {
  readonly version: CardVersion;
  readonly name: string;
  readonly description: string;
  readonly personality: string;
  readonly scenario: string;
  readonly firstMessage: string;
  readonly alternateGreetings: readonly string[];
  readonly exampleMessages: string;
  /** The embedded character book (`data.character_book`), as found; read by worldInfo.ts. */
  readonly book?: unknown;
}

export type CardResult =
  | { readonly ok: true; readonly card: Card; readonly notes: readonly Text[] }
  | { readonly ok: false; readonly error: Text };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const text = (message: string, ...args: (string | number)[]): Text => ({ message, args });

/** Whether parsed JSON claims to be a card (a `spec`, or V1's top-level character fields). */
export function looksLikeCard(json: unknown): boolean {
  if (!isObject(json)) return false;
  if (typeof json.spec === 'string' && json.spec.startsWith('chara_card')) return true;
  return typeof json.name === 'string' && ['description', 'personality', 'first_mes', 'char_persona'].some((k) => typeof json[k] === 'string');
}

/** A card from its parsed JSON. */
export function cardFromJson(json: unknown): CardResult {
  if (!isObject(json)) return { ok: false, error: text(l10n.t('The card is not a JSON object.')) };
  const spec = json.spec;
  let version: CardVersion;
  let fields: Json;
  if (spec === 'chara_card_v3' || spec === 'chara_card_v2') {
    if (!isObject(json.data)) return { ok: false, error: text(l10n.t('The card says it is {0} but has no "data" object.'), spec) };
    version = spec === 'chara_card_v3' ? 'v3' : 'v2';
    fields = json.data;
  } else if (spec !== undefined) {
    return { ok: false, error: text(l10n.t('The card format "{0}" is not one Worldline knows (chara_card_v2 or chara_card_v3).'), typeof spec === 'string' ? spec : JSON.stringify(spec)) };
  } else if (looksLikeCard(json)) {
    version = 'v1';
    fields = json;
  } else {
    return { ok: false, error: text(l10n.t('This JSON is neither a character card nor a lorebook.')) };
  }
  const name = str(fields.name).trim();
  if (name === '') return { ok: false, error: text(l10n.t('The card has no character name.')) };
  const greetings = Array.isArray(fields.alternate_greetings) ? fields.alternate_greetings.filter((g): g is string => typeof g === 'string' && g.trim() !== '') : [];
  return {
    ok: true,
    notes: [],
    card: {
      version,
      name,
      // V1 cards from old tools call the description `char_persona`.
      description: str(fields.description) || str(fields.char_persona),
      personality: str(fields.personality),
      scenario: str(fields.scenario) || str(fields.world_scenario),
      firstMessage: str(fields.first_mes) || str(fields.char_greeting),
      alternateGreetings: greetings,
      exampleMessages: str(fields.mes_example) || str(fields.example_dialogue),
      ...(version !== 'v1' && fields.character_book !== undefined && fields.character_book !== null ? { book: fields.character_book } : {}),
    },
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeChunk(chunkText: string): { ok: true; json: unknown } | { ok: false } {
  const compact = chunkText.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return { ok: false };
  try {
    return { ok: true, json: JSON.parse(utf8.decode(Buffer.from(compact, 'base64'))) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A card from a PNG image's `ccv3` or `chara` chunk (V3 first). */
export function cardFromPng(bytes: Uint8Array): CardResult {
  const read = readPngTextChunks(bytes);
  if (!read.ok) return read;
  const notes: Text[] = [...read.problems];
  const find = (keyword: string) => read.chunks.find((c) => c.keyword.toLowerCase() === keyword);
  for (const keyword of ['ccv3', 'chara']) {
    const chunk = find(keyword);
    if (!chunk) continue;
    const decoded = decodeChunk(chunk.text);
    if (!decoded.ok) {
      notes.push(text(l10n.t('The "{0}" text chunk is not base64-encoded JSON; it was skipped.'), keyword));
      continue;
    }
    const card = cardFromJson(decoded.json);
    if (!card.ok) {
      notes.push(text(l10n.t('The "{0}" text chunk was skipped.'), keyword), card.error);
      continue;
    }
    return { ok: true, card: card.card, notes };
  }
  const reason = notes.length > 0 ? notes[notes.length - 1]! : text(l10n.t('This PNG image has no character card in it (no "chara" or "ccv3" text chunk).'));
  return { ok: false, error: reason };
}
