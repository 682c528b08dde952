// The shapes of the continuity checker (DESIGN, "Continuity"): the prose added this turn checked
// against the scene state before and after the turn. The rule layer (rules.ts) finds candidates;
// the side model (judge.ts) confirms or rejects each with an exact quote and a reason. Plain data.
import type { Lang, SceneState } from '../state/types';

/** The kinds of error the checker knows. */
export type FindingType =
  /** A character who left the scene (removed from it, still in the roster) speaks or acts in it. */
  | 'departed-acts'
  /** A character recorded elsewhere (`at` ≠ the scene's location) speaks or acts in the scene, with no arrival written. */
  | 'two-places'
  /** An item held by one character is held or used by another, with no hand-over written. */
  | 'two-holders'
  /** A character recorded dead speaks or acts (not in a memory, a dream, a flashback). */
  | 'dead-acts'
  /** The prose's time runs backwards from the state's in-story time, with no flashback or new day. */
  | 'time-backwards'
  /** A near-miss spelling of a roster name (青梧 → 青吾, Elara → Elarra). */
  | 'misspelt-name';

export const FINDING_TYPES: readonly FindingType[] = ['departed-acts', 'two-places', 'two-holders', 'dead-acts', 'time-backwards', 'misspelt-name'];

/** How sure the rules are; decides the diagnostic's severity, and what shows without a side model. */
export type Confidence = 'high' | 'medium' | 'low';

/** What the rule layer found: a place in the prose worth a look. */
export interface Candidate {
  type: FindingType;
  /** Book-relative path of the chapter: the `file` of the AddedProse the quote is in. */
  file: string;
  /** An exact substring of the prose (the sentence of the error), never rewritten. */
  quote: string;
  /** Offset of `quote` in that AddedProse's `text` (UTF-16 code units), not in the whole chapter file. */
  offset: number;
  /**
   * The name the candidate is about, as the state spells it: a character, an item, the time word
   * for time-backwards; for misspelt-name the misspelling as the prose writes it.
   */
  subject: string;
  /** For misspelt names: the roster spelling it is near. For two holders: the recorded holder. For time: the state's time. */
  expected?: string;
  /** Why the rules flagged it, one line for the novelist, in the project's language. */
  reason: string;
  confidence: Confidence;
}

/** A confirmed finding, as stored on the tree and shown as a diagnostic. */
export interface Finding {
  /** Stable within its turn: type + subject + quote (so Mark as Intended finds it again). */
  id: string;
  type: FindingType;
  /** Book-relative path of the chapter the quote is in. */
  file: string;
  quote: string;
  /** Where the quote was in the prose added this turn (AddedProse.text): a hint for anchorQuote. */
  offset?: number;
  subject: string;
  expected?: string;
  reason: string;
  confidence: Confidence;
  /** 'rules': shown without a judge (high confidence only); 'judge': confirmed by the side model. */
  by: 'rules' | 'judge';
}

/** One chapter's prose added this turn. */
export interface AddedProse {
  file: string;
  text: string;
}

/** What one check reads. */
export interface CheckInput {
  prose: readonly AddedProse[];
  /** The state before the turn (the turn's instruction saw this). */
  before: SceneState;
  /** The state the scribe recorded after the turn. */
  after: SceneState;
  /** Other names of a roster name (codex entry keys), e.g. 青梧 → ["阿梧", "青姑娘"]. */
  aliases?: ReadonlyMap<string, readonly string[]>;
  lang: Lang;
}

/** The judge's answer for one candidate, after parsing and checking its quote. */
export interface Verdict {
  /** Index of the candidate in the list the prompt showed. */
  candidate: number;
  error: boolean;
  /** Exact substring of the prose the judge quotes; a verdict whose quote is not in the prose is dropped. */
  quote: string;
  reason: string;
}
