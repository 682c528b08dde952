// Who holds what: items are strings with the holder inside ("黄铜怀表（青梧持有）", "brass watch
// (held by Elara)"). The holder moves with each hand-over the prose writes; someone else holding or
// using the item with none written is a candidate, and so is the state after the turn listing one
// item with two holders.
import { alternation, EN_HANDOVER, EN_HOLD, ZH_HANDOVER, ZH_HOLD, ZH_RECEIVE } from './lexicon';
import { isUnspaced, type NameMention } from './names';
import { confidenceOf, markerLevel, nameAfter, nameBefore, push, type Ctx, type FileView } from './view';
import type { CheckInput } from './types';

const ZH_HOLD_RE = new RegExp(alternation(ZH_HOLD), 'g');
const ZH_RECEIVE_RE = new RegExp(alternation(ZH_RECEIVE));
const ZH_GIVE_RE = new RegExp(alternation(ZH_HANDOVER.filter((w) => !ZH_RECEIVE.includes(w))));
const EN_HANDOVER_RE = new RegExp(`\\b(?:${alternation(EN_HANDOVER)})\\b|\\b(?:took|grabbed|snatched|pulled|lifted|plucked)\\b[^.!?]{0,48}\\bfrom\\b`, 'i');
const EN_HOLD_RE = new RegExp(`\\b(?:${alternation(EN_HOLD)})\\b`, 'gi');
const EN_RECEIVE_RE = /\b(?:took|received|accepted|caught|snatched|grabbed)\b[^.!?]{0,48}\bfrom\b/i;

export interface ParsedItem {
  /** The item's name without the holder ("黄铜怀表"). */
  item: string;
  /** The holder as written, a roster name when one is inside the parentheses. */
  holder?: string;
  raw: string;
}

const HOLDER_WORDS_ZH = /(?:持有|保管|拿着|带着|收着|手里|手中|身上|佩戴|所有|之物|随身|揣着|戴着|暂管|借走|借用)/g;
const HOLDER_WORDS_EN = /\b(?:held|kept|carried|worn|owned|borrowed|by|with|has it|holds it|in|hand|hands|pocket|of|possession|the|is|now)\b|['’]s\b/gi;

/** "黄铜怀表（青梧持有）", "brass watch (held by Elara)", "brass watch — Elara" → item and holder. */
export function parseItem(raw: string, names: readonly string[]): ParsedItem {
  const s = raw.trim();
  let item = s;
  let inner = '';
  const paren = /^(.+?)\s*[（(]([^（）()]*)[）)]\s*$/.exec(s);
  const dash = /^(.+?)\s*(?:[—–:：]|--|\s-\s|,\s*(?=held|carried|kept|with))\s*(.+)$/.exec(s);
  if (paren) {
    item = paren[1]!.trim();
    inner = paren[2]!.trim();
  } else if (dash) {
    item = dash[1]!.trim();
    inner = dash[2]!.trim();
  } else return { item: s, raw };
  let best = '';
  for (const n of names) if (n.length > best.length && inner.includes(n)) best = n;
  if (best !== '') return { item, holder: best, raw };
  const bare = inner.replace(HOLDER_WORDS_ZH, '').replace(HOLDER_WORDS_EN, '').replace(/[\s,，。]+/g, ' ').trim();
  return bare !== '' && bare.length <= 24 ? { item, holder: bare, raw } : { item, raw };
}

/** Ways the prose may write an item: its name, and its head noun (怀表 for 黄铜怀表, "the watch" for "brass watch"). */
function itemPatterns(item: string): RegExp[] {
  const esc = (w: string): string => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (isUnspaced(item)) {
    const chars = [...item];
    const out = [new RegExp(esc(item))];
    if (chars.length >= 3) out.push(new RegExp(esc(chars.slice(-2).join(''))));
    return out;
  }
  const out = [new RegExp(`\\b${esc(item)}\\b`, 'i')];
  const words = item.split(/\s+/);
  const head = words[words.length - 1]!;
  if (words.length > 1 && head.length >= 3) out.push(new RegExp(`\\b(?:the|her|his|its|their|that|this|a|an|my|your)\\s+(?:\\w+\\s+)?${esc(head)}\\b`, 'i'));
  return out;
}

export function holderRules(ctx: Ctx): void {
  const { before, after } = ctx.input;
  const chars = new Set([...Object.keys(before.roster.characters), ...Object.keys(before.characters), ...Object.keys(after.characters), ...Object.keys(after.roster.characters)]);
  const names = [...chars];
  const beforeItems = before.items.filter((x): x is string => typeof x === 'string').map((x) => parseItem(x, names));
  const afterItems = after.items.filter((x): x is string => typeof x === 'string').map((x) => parseItem(x, names));

  // The state after the turn listing one item with two holders.
  const byItem = new Map<string, Set<string>>();
  for (const it of afterItems) {
    if (it.holder === undefined) continue;
    const set = byItem.get(it.item) ?? new Set<string>();
    set.add(it.holder);
    byItem.set(it.item, set);
  }
  for (const [item, holders] of byItem) {
    if (holders.size < 2) continue;
    const pats = itemPatterns(item);
    const hs = [...holders];
    outer: for (const v of ctx.views) {
      for (let si = 0; si < v.sentences.length; si++) {
        if (!pats.some((p) => p.test(v.sentences[si]!.text))) continue;
        const named = hs.some((h) => v.sentences[si]!.text.includes(h));
        push(ctx, v, si, { type: 'two-holders', subject: item, expected: hs[0]!, reason: ctx.words.reasons.twoHoldersState(item, hs.join(' / ')), confidence: named ? 'high' : 'medium' });
        break outer;
      }
    }
  }

  // Someone other than the holder holding or using the item. The holder moves with each hand-over
  // the prose writes (递给林砚 / handed it to Mira), so only a change of hands never written is flagged.
  for (const it of beforeItems.length > 0 ? beforeItems : afterItems) {
    if (it.holder === undefined || !chars.has(it.holder)) continue;
    const pats = itemPatterns(it.item);
    for (const v of ctx.views) {
      let cur: string | undefined = it.holder;
      for (let si = 0; si < v.sentences.length && cur !== undefined; si++) {
        const p = v.plain[si]!;
        if (!pats.some((re) => re.test(p))) continue;
        const s = v.sentences[si]!;
        const byHand = intoHands(v, si);
        const gives = [firstIndex(p, ZH_GIVE_RE), firstIndex(p, EN_HANDOVER_RE), byHand ? byHand.start - s.start : undefined].filter((x): x is number => x !== undefined);
        const takes = [firstIndex(p, ZH_RECEIVE_RE), firstIndex(p, EN_RECEIVE_RE)].filter((x): x is number => x !== undefined);
        const give = gives.length > 0 ? Math.min(...gives) : undefined;
        const take = takes.length > 0 ? Math.min(...takes) : undefined;
        // What comes first decides: 青梧接过怀表 (a taking), 叶青岚把玉佩抛给小狐，小狐接住 (a giving).
        const receiving = take !== undefined && (give === undefined || take < give);
        const hand = receiving ? take : give;
        if (hand !== undefined) {
          const actor = nameBefore(v, si, s.start + hand);
          if (receiving) {
            if (actor) cur = actor.name;
            continue;
          }
          if (actor && actor.name !== cur && chars.has(actor.name) && !/[，,；;。]/.test(v.text.slice(actor.end, s.start + hand))) {
            flagHolder(ctx, v, si, it.item, cur, actor.name, 2);
          }
          const receiver = nameAfter(v, si, s.start + hand - 1);
          cur = receiver ? receiver.name : undefined;
          continue;
        }
        const holderOf = holdingSubject(v, si, pats);
        if (holderOf === undefined || holderOf.name === cur || !chars.has(holderOf.name)) continue;
        flagHolder(ctx, v, si, it.item, cur, holderOf.name, holderOf.strength);
      }
    }
  }
}

function flagHolder(ctx: Ctx, v: FileView, si: number, item: string, holder: string, other: string, strength: number): void {
  // (The scribe recording the new holder after the turn excuses nothing: it follows the prose.)
  const conf = confidenceOf(strength, markerLevel(v, si));
  push(ctx, v, si, { type: 'two-holders', subject: item, expected: holder, reason: ctx.words.reasons.twoHolders(item, holder, other), confidence: conf });
}

/** 往林澈手里一塞 / laid it in Nora's open hand: the item put into someone's hands, a hand-over to them. */
function intoHands(v: FileView, si: number): NameMention | undefined {
  const s = v.sentences[si]!;
  for (const k of v.bySentence[si]!) {
    const m = v.mentions[k]!;
    if (v.mask[m.start] === 1) continue;
    const before = v.text.slice(Math.max(s.start, m.start - 8), m.start);
    const after = v.text.slice(m.end, m.end + 24);
    if (/(?:往|到|进|塞给|塞到|放到|放进|交到)$/.test(before) && /^的?(?:手里|手中|掌心|手心|怀里)/.test(after)) return m;
    if (/\b(?:into|in|onto)\s+$/i.test(before) && /^['’]s\s+(?:\w+\s+)?(?:hand|hands|palm|palms|grip|keeping)\b/i.test(after)) return m;
  }
  return undefined;
}

function firstIndex(p: string, re: RegExp): number | undefined {
  const m = re.exec(p);
  return m ? m.index : undefined;
}

const CLAUSE_END = /[，,；;。！？!?]/;

/**
 * The named character who holds or uses the item in sentence `si`: the nearest name before a verb
 * of holding. Direct (2) when the item is in the verb's clause (青梧掏出怀表, 青梧把怀表握在手里).
 */
function holdingSubject(v: FileView, si: number, pats: readonly RegExp[]): { name: string; strength: number } | undefined {
  const s = v.sentences[si]!;
  const p = v.plain[si]!;
  // 在林晚手里 / in Isolde's fingers: the hand names the holder.
  for (const k of v.bySentence[si]!) {
    const m = v.mentions[k]!;
    if (v.mask[m.start] === 1) continue;
    const after = v.text.slice(m.end, m.end + 24);
    if (/^的?(?:手里|手中|掌心|怀里|手心|指间)/.test(after) || (/^['’]s\s+(?:\w+\s+)?(?:hand|hands|fingers|palm|grip|pocket)\b/i.test(after) && /\b(?:in|into|between)\s+$/i.test(v.text.slice(Math.max(s.start, m.start - 10), m.start)))) {
      return { name: m.name, strength: 2 };
    }
  }
  const verbs: number[] = [];
  for (const re of [ZH_HOLD_RE, EN_HOLD_RE]) {
    re.lastIndex = 0;
    for (let m = re.exec(p); m; m = re.exec(p)) verbs.push(s.start + m.index);
  }
  if (verbs.length === 0) return undefined;
  verbs.sort((a, b) => a - b);
  for (const verb of verbs) {
    const best = nameBefore(v, si, verb);
    if (!best) continue;
    const gap = v.text.slice(best.end, verb);
    // Another clause between the name and the verb (青梧看着她，她掏出…) weakens the link.
    if (CLAUSE_END.test(gap) || gap.length > 16) return { name: best.name, strength: 1 };
    const rel = verb - s.start;
    let clauseEnd = p.length;
    const tail = CLAUSE_END.exec(p.slice(rel));
    if (tail) clauseEnd = rel + tail.index;
    const span = p.slice(best.end - s.start, clauseEnd);
    return { name: best.name, strength: pats.some((re) => re.test(span)) ? 2 : 1 };
  }
  return undefined;
}

/** The names of the items before and after, as the prose may write them (for keeping them out of marker tests). */
export function itemNamesOf(input: CheckInput): string[] {
  const out = new Set<string>();
  for (const raw of [...input.before.items, ...input.after.items]) {
    if (typeof raw !== 'string') continue;
    const { item } = parseItem(raw, []);
    out.add(item);
    if (!isUnspaced(item)) out.add(item.toLowerCase());
  }
  return [...out].filter((n) => n.length >= 2);
}
