// SillyTavern's `send_date` / `create_date` values as ISO 8601, read the way its own
// `parseTimestamp` reads them (public/scripts/utils.js:811-857 @ba6f7b7a, plus the ISO and the
// compact-milliseconds forms added upstream in 2025, PR #4806). See README.md, "send_date formats".
// Never throws: an unreadable date is `undefined`, and the import keeps the value as written.

const MONTHS: Readonly<Record<string, number>> = {
  january: 1, february: 2, march: 3, april: 4, may: 5, june: 6,
  july: 7, august: 8, september: 9, october: 10, november: 11, december: 12,
};

// The same patterns as SillyTavern, unanchored like its `String.match`, tried in its order.
const MERIDIEM = /(\w+)\s(\d{1,2}),\s(\d{4})\s(\d{1,2}):(\d{1,2})(am|pm)/i;
const HUMANIZED_MS = /(\d{4})-(\d{1,2})-(\d{1,2})@(\d{1,2})h(\d{1,2})m(\d{1,2})s(\d{1,3})ms/;
const HUMANIZED = /(\d{4})-(\d{1,2})-(\d{1,2})@(\d{1,2})h(\d{1,2})m(\d{1,2})s/;
const HUMANIZED_SPACED = /(\d{4})-(\d{1,2})-(\d{1,2}) @(\d{1,2})h (\d{1,2})m (\d{1,2})s (\d{1,3})ms/;
// moment's strict ISO_8601 as SillyTavern uses it: a date, optionally a time and an offset.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/;
/** The largest time a JS Date holds (toISOString throws beyond it). */
const MAX_TIME = 8.64e15;

const pad = (s: string | number, n = 2) => String(s).padStart(n, '0');

/** Whether the calendar parts name a real moment (no 31 February, no 25 o'clock). */
function realParts(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  return d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

function fromMeridiem(m: RegExpMatchArray): string | undefined {
  const month = MONTHS[m[1]!.toLowerCase()] ?? monthByAbbreviation(m[1]!);
  if (month === undefined) return undefined;
  const hour12 = parseInt(m[4]!, 10);
  const hour = m[6]!.toLowerCase() === 'pm' ? (hour12 % 12) + 12 : hour12 % 12;
  const [year, day, minute] = [parseInt(m[3]!, 10), parseInt(m[2]!, 10), parseInt(m[5]!, 10)];
  if (hour12 > 12 || !realParts(year, month, day, hour, minute, 0)) return undefined;
  // Local wall-clock time with no offset, exactly as SillyTavern converts it (utils.js:827).
  return `${m[3]}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:00`;
}

/** moment's `month(name)` also takes the three-letter English abbreviations. */
function monthByAbbreviation(name: string): number | undefined {
  const key = name.toLowerCase();
  if (key.length !== 3) return undefined;
  const full = Object.keys(MONTHS).find((k) => k.startsWith(key));
  return full === undefined ? undefined : MONTHS[full];
}

function fromHumanized(m: RegExpMatchArray): string | undefined {
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => parseInt(x, 10)) as [number, number, number, number, number, number];
  if (!realParts(y, mo, d, h, mi, s)) return undefined;
  const ms = m[7] === undefined ? '' : `.${pad(m[7], 3)}`;
  // SillyTavern appends `Z` although humanizedDateTime wrote local time (utils.js:835); we follow it.
  return `${pad(m[1]!, 4)}-${pad(m[2]!)}-${pad(m[3]!)}T${pad(m[4]!)}:${pad(m[5]!)}:${pad(m[6]!)}${ms}Z`;
}

/**
 * A `send_date` (or `create_date`) as ISO 8601, or undefined when SillyTavern could not read it
 * either. Numbers and digit strings are Unix milliseconds; ISO strings come back as written; the
 * meridiem form (`June 19, 2023 2:20pm`) is local time without an offset, the humanized forms
 * (`2024-7-12@01h31m37s`, `2024-07-12@01h31m37s123ms`, `2024-6-5 @14h 56m 50s 682ms`) get `Z`,
 * both as SillyTavern converts them.
 */
export function sendDateIso(v: unknown): string | undefined {
  if (!v) return undefined; // SillyTavern: `if (!timestamp) return;` (0 and '' included)
  if (typeof v !== 'string') return parseDate(v);
  // A chat's dates repeat (minute precision, swipes of one reply): each text is parsed once, as
  // SillyTavern's own dateCache does. Bounded: a chat of unique dates clears it now and then.
  const known = DATE_CACHE.get(v);
  if (known !== undefined || DATE_CACHE.has(v)) return known;
  if (DATE_CACHE.size >= DATE_CACHE_SIZE) DATE_CACHE.clear();
  const iso = parseDate(v);
  DATE_CACHE.set(v, iso);
  return iso;
}

const DATE_CACHE_SIZE = 4096;
const DATE_CACHE = new Map<string, string | undefined>();

function parseDate(v: unknown): string | undefined {
  if (typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v))) {
    const t = Number(v);
    if (!Number.isFinite(t) || t < 0 || t > MAX_TIME) return undefined;
    return new Date(t).toISOString();
  }
  if (typeof v !== 'string') return undefined;
  let m = v.match(ISO);
  if (m) {
    const [y, mo, d, h, mi, s, oh, om] = m.slice(1).map((x) => (x === undefined ? 0 : parseInt(x, 10))) as number[];
    return realParts(y!, mo!, d!, h!, mi!, s!) && oh! <= 23 && om! <= 59 ? v : undefined;
  }
  m = v.match(MERIDIEM);
  if (m) return fromMeridiem(m);
  m = v.match(HUMANIZED_MS) ?? v.match(HUMANIZED) ?? v.match(HUMANIZED_SPACED);
  return m ? fromHumanized(m) : undefined;
}

/** `create_date` reads the same way (SillyTavern sorts chats with the same parser). */
export const createDateIso = sendDateIso;
