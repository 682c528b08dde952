// Where the prose names someone, and where it nearly does. A linear scan: the names of one scene
// are at most a few hundred spellings, grouped by their first code unit, so each position of the
// prose looks at the handful that could start there, longest first.
//
// - Chinese (any Han/kana/Hangul name) has no word boundaries: a name matches anywhere, and the
//   longest name starting at a place wins ("青梧" over "青"), and matches never overlap.
// - Latin names match as whole words ("Ann" is not in "Annals"), in their own case or all upper
//   case ("ELARA"); a possessive ("Elara's") ends the word, so it matches.
// - Near misses (names.ts's second job) are tokens one edit from a roster name that no known name
//   or common word explains; see findNearNames for what keeps false alarms down.
// The codex's Aho–Corasick automaton is built for entries and folds case; here a scene's few names
// and exact-case matching make the plain scan simpler and just as fast.
import { alternation, ZH_ACTION, ZH_GAP, ZH_SPEECH } from './lexicon';

export interface NameMention {
  start: number;
  end: number;
  /** As written in the prose. */
  spelling: string;
  /** The roster name it stands for (an alias maps to its name). */
  name: string;
}

interface Entry {
  spelling: string;
  upper: string;
  name: string;
  latin: boolean;
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const HAN = /^\p{Script=Han}$/u;

/** True for a character of a script written without spaces (its names match as substrings). */
export function isUnspaced(s: string): boolean {
  return UNSPACED.test(s);
}

/** A letter or digit that would continue a Latin word (not a Han character: "Ann说" is fine). */
function isWordUnit(c: number): boolean {
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  // Latin-1 and Latin Extended letters; accents belong to the word.
  return (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) || (c >= 0x300 && c <= 0x36f);
}

export interface NameTableOptions {
  /** Roster names (as the state spells them). */
  names: Iterable<string>;
  /** Other names of a roster name (codex keys): alias → mentions of the name. */
  aliases?: ReadonlyMap<string, readonly string[]>;
}

/** The names a check looks for, built once per check. */
export class NameTable {
  private readonly byFirst = new Map<number, Entry[]>();
  private readonly known = new Set<string>();
  readonly names: readonly string[];

  constructor(opts: NameTableOptions) {
    const names: string[] = [];
    const add = (spelling: string, name: string): void => {
      const s = spelling.trim();
      if (s === '' || this.known.has(s.toLowerCase())) return;
      this.known.add(s.toLowerCase());
      const latin = !isUnspaced(s);
      const e: Entry = { spelling: s, upper: s.toUpperCase(), name, latin };
      for (const first of new Set([s.charCodeAt(0), e.upper.charCodeAt(0)])) {
        const list = this.byFirst.get(first) ?? [];
        list.push(e);
        this.byFirst.set(first, list);
      }
    };
    for (const n of opts.names) {
      if (n.trim() === '') continue;
      names.push(n);
      add(n, n);
    }
    for (const [name, alts] of opts.aliases ?? []) {
      if (name.trim() === '') continue;
      if (!names.includes(name)) {
        names.push(name);
        add(name, name);
      }
      for (const a of alts) add(a, name);
    }
    for (const list of this.byFirst.values()) list.sort((a, b) => b.spelling.length - a.spelling.length);
    this.names = names;
  }

  /** Whether `s` is a known name or alias (any case). */
  has(s: string): boolean {
    return this.known.has(s.trim().toLowerCase());
  }

  /** Every mention in `text`, left to right, never overlapping; the longest wins at each place. */
  mentions(text: string): NameMention[] {
    const out: NameMention[] = [];
    for (let i = 0; i < text.length; ) {
      const list = this.byFirst.get(text.charCodeAt(i));
      let hit: Entry | undefined;
      if (list) {
        for (const e of list) {
          const len = e.spelling.length;
          if (!text.startsWith(e.spelling, i) && !(e.latin && text.startsWith(e.upper, i))) continue;
          if (e.latin && ((i > 0 && isWordUnit(text.charCodeAt(i - 1))) || (i + len < text.length && isWordUnit(text.charCodeAt(i + len))))) continue;
          hit = e;
          break;
        }
      }
      if (hit) {
        const end = i + hit.spelling.length;
        out.push({ start: i, end, spelling: text.slice(i, end), name: hit.name });
        i = end;
      } else i++;
    }
    return out;
  }
}

// ---------------------------------------------------------------- near misses

export interface NearName {
  start: number;
  end: number;
  /** As written in the prose. */
  spelling: string;
  /** The roster name it is one or two edits from. */
  name: string;
  /** True when the place itself says "a name" (a verb of speech or action follows, or it is attributed). */
  nameLike: boolean;
}

/**
 * Characters that, put in place of one of a name's, make an ordinary word rather than a typo:
 * role nouns at the end (青年, 老人), pronouns and demonstratives at the start (那梧), and function
 * characters anywhere. Without them "青年说" would be a misspelt 青梧.
 */
const ZH_ROLE_END = new Set([...'人们者年子家儿女生士长兵众头方某哥姐弟妹爷婆娘叔伯姨师王官氏总工员友客色衣服边里外上下前后中间时候天夜声音话手脚眼脸心身气']);
const ZH_NOT_IN_NAME = new Set([...'他她它我你您谁每各其此该众诸的了着过在是有和与就也都还又把被让给对向从这那哪么呢吗吧啊呀个些']);
const ZH_PREFIX = new Set([...'阿小老大二三四五六七八九十第']);

/** What after a Chinese token says it is a name: a verb of speech or action, maybe after an adverb. */
const ZH_NAME_AFTER = new RegExp(`^(?:${alternation(ZH_GAP)})?(?:${alternation([...ZH_SPEECH, ...ZH_ACTION])})`);
/** Weaker signs: a particle or a pause right after, or attribution right before. */
const ZH_SOFT_AFTER = /^[的，。！？：、」”』]/;
/** Characters that follow a subject: adverbs, negations, prepositions (江宇没有抬头、陆璃一直等着). */
const ZH_SUBJECT_NEXT = new Set([...'没不也都却便就又还已正在把被对向朝跟和从一替给为将才只仍竟忽突猛连早刚']);
const ZH_SOFT_BEFORE = /(?:[」”』]|对|和|与|跟|向|朝|叫|喊|问|看着|望着|是)$/;

/** English words of four letters or more that would otherwise look like near names at a sentence's start. */
const EN_COMMON = new Set(`about above after again against along also although always among another anyone anything around away back
because been before behind being below beneath beside besides best better between beyond both bring but came cannot come could dare dark
days dear does done down during each early either else even ever every everyone everything face fact fall felt find fine first five
four from gave give going gone good great half hand hands hard have having head hear heard help here hers herself high hill himself
home hope hour hours into just keep kept kind knew know land last late later least left less like line little live long look made
make many mark mary maybe mean might mind mine miss more most much must name near neither never next nice night nine none north nothing
once only open other ours over part past perhaps place rain read real rest right road rock rose said same sand seen self sent shall
shed should side since some soon south stay still such sure take taken tell than that their them then there these they thing think
this those though three through thus time told took tower town tree true turn under unless until upon very wait walk wall want warm
well went were west what when where whether which while white whom whose wide will wind with within without word work would yard year
years yellow young your yours dawn dusk noon gods lord lady king queen sir madam father mother brother sister uncle aunt captain doctor
master mister miss sure okay yeah maybe please thank thanks sorry hello good-bye goodbye today tonight tomorrow yesterday monday tuesday
wednesday thursday friday saturday sunday january february march april june july august september october november december
english french german spanish chinese`.split(/\s+/).filter((w) => w !== ''));

const EN_NAME_AFTER = /^(?:'s|’s)?\s*(?:,\s*)?(?:said|asked|replied|whispered|shouted|answered|muttered|murmured|nodded|smiled|laughed|sighed|walked|took|turned|looked|stood|sat|shrugged|frowned|grinned|says|asks|nods|smiles|walks|turns|looks|stands|sits|had|was|did|would|could|didn['’]t|wasn['’]t|hadn['’]t|couldn['’]t|wouldn['’]t|never|still|just|only|got|went|came|drew|ran|kept|held|[a-z]+ed)\b/;
const EN_NAME_BEFORE = /(?:\b(?:said|asked|replied|whispered|answered|to|and|with|at|for|told|saw|beside|behind)|[,"“”])\s*$/;

/** Optimal string alignment distance (Damerau–Levenshtein with adjacent swaps), stopping past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const m = a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

export interface NearNameOptions {
  /** The roster names a token may be a misspelling of. */
  targets: readonly string[];
  /** Every known name and alias: a token that is one is no misspelling. */
  known: NameTable;
  /** The real mentions in the same text: near misses never overlap them. */
  mentions: readonly NameMention[];
}

function overlaps(start: number, end: number, mentions: readonly NameMention[]): boolean {
  for (const m of mentions) if (m.start < end && start < m.end) return true;
  return false;
}

/** Tokens of `text` one edit from a roster name (two for Latin names of 8 letters or more). */
export function findNearNames(text: string, opts: NearNameOptions): NearName[] {
  const out: NearName[] = [];
  const seen = new Set<string>();
  const push = (n: NearName): void => {
    const key = `${n.start}:${n.end}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(n);
  };
  const zhTargets = opts.targets.filter((t) => t.length >= 2 && [...t].every((c) => HAN.test(c)) && t.length === [...t].length);
  if (zhTargets.length > 0) nearZh(text, zhTargets, opts, push);
  const enTargets = opts.targets.filter((t) => !isUnspaced(t));
  if (enTargets.length > 0) nearEn(text, enTargets, opts, push);
  return out.sort((a, b) => a.start - b.start);
}

function nearZh(text: string, targets: readonly string[], opts: NearNameOptions, push: (n: NearName) => void): void {
  // Positions of each code unit, so a target is only tried where its first or second character is.
  const at = new Map<number, number[]>();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x3400) continue;
    const list = at.get(c);
    if (list) list.push(i);
    else at.set(c, [i]);
  }
  for (const t of targets) {
    const len = t.length;
    const starts = new Set<number>();
    for (const i of at.get(t.charCodeAt(0)) ?? []) starts.add(i);
    for (const i of at.get(t.charCodeAt(1)) ?? []) if (i >= 1) starts.add(i - 1);
    for (const i of starts) {
      if (i + len > text.length) continue;
      let diff = -1;
      let ok = true;
      for (let k = 0; k < len; k++) {
        if (text.charCodeAt(i + k) === t.charCodeAt(k)) continue;
        if (diff !== -1) {
          ok = false;
          break;
        }
        diff = k;
      }
      if (!ok || diff === -1) continue;
      const ch = text[i + diff]!;
      if (!HAN.test(ch) || ZH_NOT_IN_NAME.has(ch)) continue;
      if (len === 2 && diff === 1 && ZH_ROLE_END.has(ch)) continue;
      if (diff === 0 && ZH_PREFIX.has(ch)) continue;
      const spelling = text.slice(i, i + len);
      if (opts.known.has(spelling) || overlaps(i, i + len, opts.mentions)) continue;
      // Part of a longer Han run on both sides is a word that happens to contain the name's characters.
      const after = text.slice(i + len, i + len + 12);
      const before = text.slice(Math.max(0, i - 3), i);
      const atStart = i === 0 || /[\n，。！？；：」”「“\s]$/.test(before) || ZH_SOFT_BEFORE.test(before);
      const verbAfter = ZH_NAME_AFTER.test(after) || (atStart && ZH_SUBJECT_NEXT.has(after[0] ?? ''));
      const soft = (ZH_SOFT_AFTER.test(after) && (len >= 3 || atStart)) || (len >= 3 && /^\p{Script=Han}/u.test(after));
      if (!verbAfter && !soft) continue;
      // A changed surname makes ordinary words (谎言 for 裴言) far more often than a changed given name does.
      const sure = verbAfter && (len >= 3 || diff > 0);
      push({ start: i, end: i + len, spelling, name: t, nameLike: sure });
    }
  }
}

const LATIN_TOKEN = /[A-ZÀ-ÖØ-Þ][A-Za-zÀ-ÖØ-öø-ÿ]*(?:['’-][A-Za-zÀ-ÖØ-öø-ÿ]+)*/g;

/** Whether `word` (lower case) stands in `text` as a whole word in lower case. */
function hasLowerWord(text: string, word: string): boolean {
  for (let i = text.indexOf(word); i !== -1; i = text.indexOf(word, i + 1)) {
    if ((i === 0 || !isWordUnit(text.charCodeAt(i - 1))) && !isWordUnit(text.charCodeAt(i + word.length))) return true;
  }
  return false;
}

function nearEn(text: string, targets: readonly string[], opts: NearNameOptions, push: (n: NearName) => void): void {
  const parts: { part: string; name: string }[] = [];
  for (const t of targets) for (const p of t.split(/[\s-]+/)) if (p.length >= 4) parts.push({ part: p.toLowerCase(), name: t });
  if (parts.length === 0) return;
  LATIN_TOKEN.lastIndex = 0;
  for (let m = LATIN_TOKEN.exec(text); m; m = LATIN_TOKEN.exec(text)) {
    let token = m[0];
    const start = m.index;
    if (start > 0 && isWordUnit(text.charCodeAt(start - 1))) continue;
    token = token.replace(/['’]s$/, '');
    if (token.length < 4) continue;
    const folded = token.toLowerCase();
    if (opts.known.has(token) || EN_COMMON.has(folded)) continue;
    const end = start + token.length;
    if (overlaps(start, end, opts.mentions)) continue;
    // A word the prose also writes in lower case is a word, not a name.
    if (hasLowerWord(text, folded)) continue;
    for (const { part, name } of parts) {
      if (part === folded) break;
      const max = part.length >= 8 ? 2 : 1;
      if (Math.abs(part.length - folded.length) > max) continue;
      if (editDistance(folded, part, max) > max) continue;
      // A known part of another name ("Mara" when Mary and Mara are both in the roster) is no typo.
      if (parts.some((p) => p.part === folded)) break;
      const after = text.slice(end, end + 24);
      const before = text.slice(Math.max(0, start - 12), start);
      // After "of", "in", "from"… a capitalised word is more often a place or a thing (the stars of Vela).
      const placeLike = /\b(?:of|in|from|on|into|toward|towards|near|across|over|under|beyond|through|past)\s+(?:the\s+)?$/i.test(before);
      const nameLike = !placeLike && (EN_NAME_AFTER.test(after) || EN_NAME_BEFORE.test(before));
      // At a sentence's start any word is capitalised: only a near miss in a name's place counts there.
      const sentenceStart = /(?:^|[.!?"“”]\s*|\n\s*)$/.test(text.slice(Math.max(0, start - 3), start));
      if (!nameLike && sentenceStart) break;
      push({ start, end, spelling: token, name, nameLike });
      break;
    }
  }
}
