// Time running backwards: the prose's times of day (and numbered days) against the state's time
// before the turn. A new day resets the clock; deep night into the small hours is going forward;
// dialogue about another time, plans and yesterdays do not count; a time said as now in dialogue
// counts, less surely.
import { alternation, EN_NEW_DAY, EN_TIME_ELSEWHERE, EN_TIMES, ZH_NEW_DAY, ZH_TIME_ELSEWHERE, ZH_TIMES, type TimeWord } from './lexicon';
import { confidenceOf, markerLevel, push, type Ctx } from './view';

const ZH_NEW_DAY_RE = new RegExp(alternation(ZH_NEW_DAY));
const ZH_ELSEWHERE_BEFORE = new RegExp(`(?:${alternation(ZH_TIME_ELSEWHERE)})[^，。！？；\\n]{0,3}$`);
const EN_NEW_DAY_RE = new RegExp(`\\b(?:${alternation(EN_NEW_DAY)})\\b`, 'i');
const EN_ELSEWHERE_BEFORE = new RegExp(`\\b(?:${alternation(EN_TIME_ELSEWHERE)})\\s+(?:\\w+\\s+){0,3}$`, 'i');
const ZH_TIME_RE = new RegExp(alternation(ZH_TIMES.map((t) => t.word)), 'g');
const EN_TIME_RE = new RegExp(`\\b(?:${alternation(EN_TIMES.map((t) => t.word))})\\b`, 'gi');
const TIME_BY_WORD = new Map<string, TimeWord>([...ZH_TIMES, ...EN_TIMES].map((t) => [t.word, t]));

const NUMBERS: Readonly<Record<string, number>> = {
  一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10, 十一: 11, 十二: 12,
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10,
};
const NUM = '\\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve';
const EN_CLOCK = new RegExp(`\\b(${NUM})(?::\\d\\d)?\\s*(?:o['’]clock\\s*)?(in the morning|in the afternoon|in the evening|at night|a\\.?m\\.?|p\\.?m\\.?)`, 'gi');
const ZH_DAY = /第([一二三四五六七八九十两]{1,3}|\d{1,3})[日天]/;
const EN_DAY = /\bday\s+(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten)\b|\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+day\b/i;
/** A time stated as now inside dialogue: 「才上午十点」, "It's ten in the morning". */
const NOW_BEFORE = /(?:现在|才|已经|都|眼下|此刻|这会儿|\bit['’]s|\bit is|\balready|\bonly|\bnow)\s*$/i;

function numberOf(s: string): number | undefined {
  const n = /^\d+$/.test(s) ? Number(s) : NUMBERS[s.toLowerCase()];
  return n !== undefined && Number.isFinite(n) ? n : undefined;
}

/** The in-story day number a text names (第五日, Day 4, the fourth day), if any. */
export function dayOf(text: string): number | undefined {
  const zh = ZH_DAY.exec(text);
  if (zh) return numberOf(zh[1]!);
  const en = EN_DAY.exec(text);
  return en ? numberOf((en[1] ?? en[2])!) : undefined;
}

function hourWord(hour: number, part: string): TimeWord {
  const p = part.toLowerCase().replace(/\./g, '');
  let h = hour % 12;
  if (p === 'pm' || p === 'in the afternoon' || p === 'in the evening' || (p === 'at night' && h >= 6)) h += 12;
  const rank = h < 5 ? 1 : h < 7 ? 2 : h < 9 ? 3 : h < 12 ? 4 : h < 14 ? 5 : h < 17 ? 6 : h < 20 ? 7 : h < 23 ? 8 : 9;
  return { word: '', lo: rank, hi: rank };
}

interface TimeHit {
  word: string;
  t: TimeWord;
  index: number;
}

/** Times of day in `p`: clock times first (two in the morning), then time words outside them. */
function timeHits(p: string): TimeHit[] {
  const hits: TimeHit[] = [];
  const taken: [number, number][] = [];
  EN_CLOCK.lastIndex = 0;
  for (let m = EN_CLOCK.exec(p); m; m = EN_CLOCK.exec(p)) {
    const n = numberOf(m[1]!);
    if (n === undefined || n > 12) continue;
    hits.push({ word: m[0], t: { ...hourWord(n, m[2]!), word: m[0] }, index: m.index });
    taken.push([m.index, m.index + m[0].length]);
  }
  for (const re of [ZH_TIME_RE, EN_TIME_RE]) {
    re.lastIndex = 0;
    for (let m = re.exec(p); m; m = re.exec(p)) {
      const at = m.index;
      if (taken.some(([a, b]) => at < b && a < at + m![0].length)) continue;
      const t = TIME_BY_WORD.get(m[0]) ?? TIME_BY_WORD.get(m[0].toLowerCase());
      if (t) hits.push({ word: m[0], t, index: at });
    }
  }
  return hits.sort((a, b) => a.index - b.index);
}

/** The time of day a state's time string names, if any ("傍晚（雨中）" → 傍晚, "two in the morning" → small hours). */
export function timeOf(time: string): TimeWord | undefined {
  return timeHits(time)[0]?.t;
}

export function timeRules(ctx: Ctx): void {
  const stateTime = ctx.input.before.time;
  let cur = timeOf(stateTime);
  let day = dayOf(stateTime);
  if (!cur && day === undefined) return;
  for (const v of ctx.views) {
    for (let si = 0; si < v.sentences.length; si++) {
      const p = v.plain[si]!;
      const d = dayOf(p);
      if (d !== undefined && day !== undefined && !(d === 2 && /第二[天日]/.test(p) && day > 2)) {
        if (d < day) {
          const word = (ZH_DAY.exec(p) ?? EN_DAY.exec(p))?.[0] ?? String(d);
          push(ctx, v, si, { type: 'time-backwards', subject: word, expected: stateTime, reason: ctx.words.reasons.timeBackwards(word, stateTime), confidence: confidenceOf(2, markerLevel(v, si)) });
          continue;
        }
        if (d > day) {
          day = d;
          cur = undefined;
        }
      } else if (ZH_NEW_DAY_RE.test(p) || EN_NEW_DAY_RE.test(p)) {
        cur = undefined;
        if (day !== undefined) day++;
        continue;
      }
      const hits = timeHits(p).map((h) => ({ ...h, quoted: false }));
      // A time said as now inside dialogue counts too, less surely.
      const raw = v.sentences[si]!.text;
      if (raw !== p) {
        for (const h of timeHits(raw)) {
          if (v.mask[v.sentences[si]!.start + h.index] === 1 && NOW_BEFORE.test(raw.slice(Math.max(0, h.index - 8), h.index))) hits.push({ ...h, quoted: true });
        }
      }
      for (const h of hits) {
        const lead = (h.quoted ? raw : p).slice(Math.max(0, h.index - 24), h.index);
        if (!h.quoted && (ZH_ELSEWHERE_BEFORE.test(lead) || EN_ELSEWHERE_BEFORE.test(lead) || /\bgood\s*$/i.test(lead))) continue;
        if (!cur) {
          cur = h.t;
          continue;
        }
        const earlier = h.t.hi < cur.lo;
        // Deep night into the small hours or dawn: the night passed, time went forward.
        const wrapped = cur.lo >= 8 && h.t.lo <= 2;
        if (!earlier || wrapped) {
          if (h.t.lo >= cur.lo || wrapped) cur = h.t;
          continue;
        }
        const level = markerLevel(v, si);
        // Night to early morning with no new day said may be the next morning: less sure.
        const strength = h.quoted || (cur.lo >= 8 && h.t.lo <= 3) ? 1 : 2;
        push(ctx, v, si, { type: 'time-backwards', subject: h.word, expected: stateTime, reason: ctx.words.reasons.timeBackwards(h.word, stateTime), confidence: confidenceOf(strength, level) });
      }
    }
  }
}
