// The rule layer: plain code that finds the places in this turn's prose worth a second look.
// It reads who speaks or acts (a name with a verb of speech or action, or attributed to a quote),
// compares that with the state before and after the turn, and adds time words, items in hand and
// near-miss names. Each candidate quotes its sentence exactly and carries a confidence:
// - high: direct evidence (a quoted line attributed to the name, a name right before its verb)
//   and no memory, call, letter, dream or wish anywhere near (same paragraph, or the sentence
//   after); only these show without a side model, so they must be precise;
// - medium: weaker evidence, or a flashback or dream opening one of the two paragraphs before;
// - low: a marker right there; left for the judge, which usually rejects it.
// Mentions inside quotation marks never count as acts ("「青梧说过他会回来」" is someone else speaking).
// This file reads who acts (presence, death) and near-miss names; holders.ts and time.ts hold the
// item and time rules, view.ts the shared reading of a file.
import type { SceneState } from '../state/types';
import { holderRules, itemNamesOf } from './holders';
import {
  alternation, EN_ACTION, EN_BODY, EN_DEAD, EN_GAP, EN_IRREGULAR_PAST, EN_NOT_ACT_ED, EN_NOT_DEAD, EN_SPEECH, EN_SUBORDINATE,
  ZH_ACTION, ZH_BODY, ZH_DEAD, ZH_GAP, ZH_NOT_ACT_NEXT, ZH_NOT_DEAD, ZH_SPEECH,
} from './lexicon';
import { findNearNames, isUnspaced, NameTable, type NameMention } from './names';
import { timeRules } from './time';
import type { Candidate, CheckInput, Confidence } from './types';
import { confidenceOf, markerLevel, own, push, sentenceIndexOf, viewOf, wordsFor, type Ctx, type FileView } from './view';

export { parseItem, type ParsedItem } from './holders';
export { dayOf, timeOf } from './time';
export { wordsFor } from './view';

// ---------------------------------------------------------------- patterns (built once)

const ZH_SPEECH_AFTER = new RegExp(`^(?:${alternation(ZH_GAP)}){0,2}(?:${alternation(ZH_SPEECH)})`);
const ZH_ACTION_AFTER = new RegExp(`^(?:${alternation(ZH_GAP)}){0,2}(?:${alternation(ZH_ACTION)})`);
/** 青梧：「…」 */
const ZH_COLON_QUOTE = /^\s*[：:]\s*[「“"『]/;
/** Words before a name that make it not (yet) act: 等青梧回来、盼着青梧说话. */
const ZH_NOT_YET_BEFORE = /(?:等|等着|等待|盼着|盼|希望|期待|想让|要是|如果|假如|倘若|若是|以为|好像|仿佛|似乎|梦见|想起|想到|记得|回忆起|想象)$/;
const ZH_GAP_RE = new RegExp(`^(?:${alternation(ZH_GAP)}){0,3}`);
const ZH_BODY_AFTER = new RegExp(`^的(?:${alternation(ZH_BODY)})`);
const ZH_CLAUSE_START = /(?:^|[，。！？；：、」”』\s]|只见|却见|但见|忽见|原来是|竟是)$/;
/** A body lying still is described, not acting. */
const DEAD_STILL = /^(?:静静地|安静地|直挺挺地|一动不动地)?(?:躺|仰面|横卧)|^\s*(?:lay|lies|lying|rested|was laid|remained still)\b/i;
/** Someone coming in, in the sentence before an act (她推门进来。). */
const ARRIVER = /他|她|有人|门|\b(?:he|she|someone|somebody|the door)\b/i;
const ZH_GHOST = /鬼魂|亡魂|幽灵|阴魂|魂魄|冤魂|灵魂|显灵|托梦/;

const EN_GAP_RE = `(?:(?:${alternation(EN_GAP)}|[a-z]+ly)\\s+){0,2}`;
const EN_SPEECH_AFTER = new RegExp(`^\\s*(?:,\\s*)?${EN_GAP_RE}(?:${alternation(EN_SPEECH)})\\b`, 'i');
const EN_ACTION_AFTER = new RegExp(`^\\s*(?:,\\s*)?${EN_GAP_RE}(?:${alternation(EN_ACTION)})\\b`, 'i');
/** "…," said Elara */
const EN_SPEECH_BEFORE = new RegExp(`\\b(?:${alternation(EN_SPEECH)})\\s*$`, 'i');
const EN_NOT_YET_BEFORE = /\b(?:waited for|waiting for|wait for|hoped|hoping|wished|wishing|if|imagined|pictured|remembered|recalled|dreamed|dreamt|expected|missed|thought of|thinking of)\s+(?:that\s+)?$/i;
const EN_PAST_AFTER = new RegExp(`^\\s*(?:,\\s*)?${EN_GAP_RE}([a-z]+ed|${alternation(EN_IRREGULAR_PAST)})\\b`, 'i');
const EN_PRESENT_AFTER = /^\s*(?:[a-z]+ly\s+)?([a-z]{3,}(?:s|es))\b(?!['’])/i;
const EN_ING_AFTER = /^\s*(?:,\s*)?(?:was\s+|is\s+|were\s+)?(?:already\s+|still\s+)?(?:[a-z]+ing\b|on (?:his|her|their) feet\b)/i;
const EN_BODY_AFTER = new RegExp(`^['’]s\\s+(?:\\w+\\s+)?(?:${alternation(EN_BODY)})\\b`, 'i');
const EN_CLEFT = /\b(?:it was|it's|it is|was)\s+$/i;
/** Present-tense -s words that are not verbs. */
const EN_NOT_PRESENT = new Set(['was', 'has', 'is', 'his', 'this', 'yes', 'always', 'perhaps', 'across', 'less', 'unless', 'towards', 'nevertheless', 'whereas', 'afterwards', 'sometimes', 'news', 'glass', 'grass', 'dress', 'class', 'boss', 'kiss', 'mess', 'miss', 'does']);
const EN_GHOST = /\b(?:ghost|spirit|phantom|apparition|spectre|specter|haunt(?:ed|ing)?)\b/i;

interface Act {
  name: string;
  mention: NameMention;
  sentence: number;
  /** 3: a quoted line attributed to the name; 2: name right before a verb; 1: weaker. */
  strength: number;
}

/** Who speaks or acts in this file, and how directly. */
function actsOf(v: FileView): Act[] {
  const acts: Act[] = [];
  v.mentions.forEach((m, k) => {
    if (v.mask[m.start] === 1) return;
    const si = v.mentionSentence[k]!;
    const s = v.sentences[si];
    if (!s) return;
    const after = v.text.slice(m.end, Math.min(s.end, m.end + 40));
    const before = v.text.slice(Math.max(s.start, m.start - 16), m.start);
    const hasQuote = v.mask.subarray(s.start, s.end).includes(1);
    let strength = 0;
    if (isUnspaced(m.spelling)) {
      if (ZH_NOT_YET_BEFORE.test(before)) return;
      const atStart = ZH_CLAUSE_START.test(before);
      // A one-character name only counts at the start of a clause (青 in 青色 is no one).
      if ([...m.spelling].length === 1 && !atStart) return;
      if (ZH_COLON_QUOTE.test(after)) strength = 3;
      else if (ZH_SPEECH_AFTER.test(after)) strength = hasQuote ? 3 : 2;
      else if (ZH_ACTION_AFTER.test(after)) strength = 2;
      else if (ZH_BODY_AFTER.test(after)) strength = 1;
      else if (atStart) {
        // A name opening a clause and followed by a verb-like character is its subject (塞拉斯听完).
        const rest = after.slice((ZH_GAP_RE.exec(after)?.[0] ?? '').length);
        const next = rest[0];
        if (next !== undefined && /\p{Script=Han}/u.test(next) && !ZH_NOT_ACT_NEXT.has(next)) strength = 1;
      }
      // 说过、来过: the experiential aspect tells of another time.
      const verb = ZH_SPEECH_AFTER.exec(after) ?? ZH_ACTION_AFTER.exec(after);
      if (verb && after[verb[0].length] === '过') return;
    } else {
      if (EN_NOT_YET_BEFORE.test(before)) return;
      if (EN_BODY_AFTER.test(after)) strength = 1;
      else if (/^['’]s\b/.test(after)) return;
      else if (EN_SPEECH_AFTER.test(after)) strength = hasQuote ? 3 : 2;
      else if (EN_SPEECH_BEFORE.test(before) && hasQuote) strength = 3;
      else if (EN_ACTION_AFTER.test(after)) strength = 2;
      else if (EN_CLEFT.test(before) && /^\s*who\b/i.test(after)) strength = 2;
      else {
        const past = EN_PAST_AFTER.exec(after);
        const present = EN_PRESENT_AFTER.exec(after);
        if (past && !EN_NOT_ACT_ED.has(past[1]!.toLowerCase())) strength = 2;
        else if (present && !EN_NOT_PRESENT.has(present[1]!.toLowerCase()) && !/(?:ss|us|is)$/i.test(present[1]!)) strength = 1;
        else if (EN_ING_AFTER.test(after)) strength = 1;
      }
      // "since Theo left", "the day Elara sang": the act belongs to another time.
      if (strength >= 2 && EN_SUBORDINATE.test(before)) strength = 1;
    }
    if (strength > 0) acts.push({ name: m.name, mention: m, sentence: si, strength });
  });
  return acts;
}

/** Whether the prose writes `name` arriving at or before sentence `si` (from sentence `from` on). */
function arrivalWritten(v: FileView, name: string, si: number, from = 0): boolean {
  for (let j = Math.max(0, from); j <= si; j++) {
    if (!v.arrival[j]) continue;
    if (j === si) return true;
    // The sentence before, with someone coming in it (她推门进来。「…」): not "the quiet came back".
    if (j === si - 1 && ARRIVER.test(v.plain[j]!)) return true;
    if (v.bySentence[j]!.some((k) => v.mentions[k]!.name === name)) return true;
  }
  return false;
}

/** Whether a sentence names a place (its core, without an article: "the docks" → "docks"). */
function placeNamed(p: string, place: string): boolean {
  const core = place.trim().replace(/^(?:the|a|an)\s+/i, '');
  if ([...core].length < 2) return false;
  return isUnspaced(core) ? p.includes(core) : p.toLowerCase().includes(core.toLowerCase());
}

/** The first sentence before `si` where `name` leaves (a mention and a word for leaving, outside quotes), or -1. */
function leftAt(v: FileView, name: string, si: number): number {
  for (let j = 0; j < si; j++) {
    if (!v.leave[j]) continue;
    if (v.bySentence[j]!.some((k) => v.mentions[k]!.name === name && v.mask[v.mentions[k]!.start] === 0)) return j;
  }
  return -1;
}

// ---------------------------------------------------------------- what the state says

function isDead(state: SceneState, name: string): boolean {
  const c = Object.prototype.hasOwnProperty.call(state.characters, name) ? state.characters[name] : undefined;
  if (!c) return false;
  for (const field of [c.status, c.notes]) {
    if (typeof field !== 'string' || field === '') continue;
    const t = field.trim();
    if (ZH_DEAD.test(t) && !ZH_NOT_DEAD.test(t)) return true;
    const lower = t.toLowerCase();
    if (EN_DEAD.test(lower) && !EN_NOT_DEAD.test(lower)) return true;
  }
  return false;
}

function presenceRules(ctx: Ctx, v: FileView, acts: readonly Act[]): void {
  const { before, after } = ctx.input;
  for (const act of acts) {
    const name = act.name;
    const level = markerLevel(v, act.sentence);
    const ghost = ZH_GHOST.test(v.plain[act.sentence]!) || EN_GHOST.test(v.plain[act.sentence]!);
    let conf = confidenceOf(act.strength, level);
    // dead-acts first: a dead character who also left is reported once, as dead.
    const deadBefore = isDead(before, name);
    const deadAfter = !deadBefore && isDead(after, name);
    if (deadBefore || deadAfter) {
      // A body lying still is described, not acting.
      if (DEAD_STILL.test(v.text.slice(act.mention.end, act.mention.end + 12))) continue;
      // Died this turn: acts before the death are fine, so only the judge can tell.
      if (deadAfter || ghost) conf = 'low';
      push(ctx, v, act.sentence, { type: 'dead-acts', subject: name, reason: ctx.words.reasons.dead(name), confidence: conf });
      continue;
    }
    const inRoster = own(before.roster.characters, name) !== undefined;
    const wasHere = own(before.characters, name);
    const nowRec = own(after.characters, name);
    const nowPresent = nowRec !== undefined && nowRec.at === after.location;
    const arrived = arrivalWritten(v, name, act.sentence);
    if (inRoster && wasHere === undefined) {
      if (arrived && nowPresent) continue;
      if (arrived) conf = 'low';
      else if (nowPresent && conf === 'high') conf = 'medium'; // the scribe put them back: maybe an arrival in other words
      push(ctx, v, act.sentence, { type: 'departed-acts', subject: name, reason: ctx.words.reasons.departed(name), confidence: conf });
      continue;
    }
    // two-places: recorded elsewhere, not here before the turn (someone who leaves this turn may act before leaving).
    const rec = nowRec ?? wasHere;
    if (!rec) continue;
    const wasPresent = wasHere !== undefined && wasHere.at === before.location;
    if (wasPresent) {
      // Left during this turn, in an earlier sentence, and acting again with no return written.
      const gone = nowRec === undefined || nowRec.at !== after.location;
      const left = gone ? leftAt(v, name, act.sentence) : -1;
      if (left < 0 || arrivalWritten(v, name, act.sentence, left + 1)) continue;
      if (nowRec === undefined) {
        push(ctx, v, act.sentence, { type: 'departed-acts', subject: name, reason: ctx.words.reasons.departed(name), confidence: conf });
      } else {
        push(ctx, v, act.sentence, { type: 'two-places', subject: name, reason: ctx.words.reasons.twoPlaces(name, nowRec.at, after.location), confidence: conf });
      }
      continue;
    }
    const elsewhereAfter = nowRec !== undefined && nowRec.at !== after.location && nowRec.at !== before.location;
    const elsewhereBefore = wasHere !== undefined && wasHere.at !== before.location && wasHere.at !== after.location;
    if (!elsewhereAfter && !(elsewhereBefore && nowRec === undefined)) {
      // Elsewhere before, here after: fine if the arrival is written.
      if (wasHere === undefined || arrived || !nowPresent) continue;
      if (conf === 'high') conf = 'medium';
    } else if (arrived) conf = 'low';
    // The act told where they are recorded (青梧在渡口等着, Mira waited at the docks): not in this scene.
    const at = nowRec !== undefined && elsewhereAfter ? nowRec.at : wasHere!.at;
    if (placeNamed(v.plain[act.sentence]!, at)) conf = 'low';
    // Someone new this turn, placed elsewhere: the prose may have cut away to them.
    if (!inRoster && wasHere === undefined && conf === 'high') conf = 'medium';
    push(ctx, v, act.sentence, { type: 'two-places', subject: name, reason: ctx.words.reasons.twoPlaces(name, at, after.location || before.location), confidence: conf });
  }
}

function spellingRules(ctx: Ctx, table: NameTable, beforeNames: ReadonlySet<string>): void {
  const targets = [...beforeNames];
  // Names the scribe registered this turn that are a near miss of an older name may be the typo
  // itself copied into the state: they do not excuse a token, but lower its confidence.
  for (const v of ctx.views) {
    const near = findNearNames(v.text, { targets, known: table, mentions: v.mentions });
    for (const n of near) {
      const si = sentenceIndexOf(v.sentences, n.start);
      if (si < 0) continue;
      const registered = own(ctx.input.after.roster.characters, n.spelling) !== undefined || own(ctx.input.after.characters, n.spelling) !== undefined;
      // A changed first character of a two-character Chinese name is more often a word (勿念 for 顾念).
      const surname = isUnspaced(n.name) && n.name.length === 2 && n.spelling[0] !== n.name[0];
      const conf: Confidence = n.nameLike && !registered ? 'high' : (n.nameLike || !registered) && !surname ? 'medium' : 'low';
      push(ctx, v, si, { type: 'misspelt-name', subject: n.spelling, expected: n.name, reason: ctx.words.reasons.misspelt(n.spelling, n.name), confidence: conf });
    }
  }
}

/** The names a check knows: every character of the state before and after, and the aliases. */
function namesOf(input: CheckInput): { beforeNames: Set<string>; table: NameTable; afterOnly: string[] } {
  const { before, after } = input;
  const beforeNames = new Set([...Object.keys(before.roster.characters), ...Object.keys(before.characters)]);
  const afterOnly = [...Object.keys(after.roster.characters), ...Object.keys(after.characters)].filter((n) => !beforeNames.has(n));
  return { beforeNames, afterOnly, table: new NameTable({ names: [...beforeNames], ...(input.aliases ? { aliases: input.aliases } : {}) }) };
}

/** Every candidate the rules find in this turn's prose, in file and then text order. */
export function findCandidates(input: CheckInput): Candidate[] {
  const { beforeNames, afterOnly, table } = namesOf(input);
  const ctx: Ctx = { input, words: wordsFor(input.lang), views: [], out: [], seen: new Set() };
  // After-only names are mentions too (a new character acting is no typo of an old one), but only
  // the ones that are not a near miss of an older name: those may be the typo copied by the scribe.
  const fullTable = afterOnly.length === 0 ? table : new NameTable({
    names: [...beforeNames, ...afterOnly.filter((n) => !nearOlder(n, beforeNames, table))],
    ...(input.aliases ? { aliases: input.aliases } : {}),
  });
  const itemNames = itemNamesOf(input);
  for (const p of input.prose) {
    if (typeof p.text !== 'string' || p.text === '') continue;
    ctx.views.push(viewOf(p.file, p.text, fullTable, itemNames));
  }
  for (const v of ctx.views) presenceRules(ctx, v, actsOf(v));
  holderRules(ctx);
  timeRules(ctx);
  spellingRules(ctx, fullTable, beforeNames);
  const order = new Map(ctx.views.map((v, i) => [v.file, i]));
  return ctx.out.sort((a, b) => (order.get(a.file)! - order.get(b.file)!) || a.offset - b.offset);
}

/** An after-only name one edit from an older one (青吾 next to 青梧, "Elarra" next to "Elara"). */
function nearOlder(name: string, older: ReadonlySet<string>, table: NameTable): boolean {
  const probe = isUnspaced(name) ? `${name}说。` : `${name} said.`;
  return findNearNames(probe, { targets: [...older], known: table, mentions: [] }).some((n) => n.start === 0 && n.spelling === name);
}
