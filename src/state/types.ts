// The scene state as DESIGN.md "Scene state" defines it. Plain data, JSON-serialisable.

export type Lang = 'zh' | 'en';

export interface CharacterState {
  /** Integer in [-100, 100]. */
  affinity: number;
  status: string;
  notes: string;
  /** Where the character is; presence is `at === location`, a plain string compare. */
  at: string;
}

/** Name → in-story time first seen. Insertion order is age order (oldest first). */
export interface Roster {
  characters: Record<string, string>;
  locations: Record<string, string>;
  items: Record<string, string>;
  threads: Record<string, string>;
}

export type RosterTable = keyof Roster;
export const ROSTER_TABLES: readonly RosterTable[] = ['characters', 'locations', 'items', 'threads'];

export interface SceneState {
  time: string;
  location: string;
  characters: Record<string, CharacterState>;
  /** "黄铜怀表（青梧持有）": the holder is written inside the string. */
  items: string[];
  facts: string[];
  threads: string[];
  roster: Roster;
  variables?: Record<string, unknown>;
}

export type ListField = 'items' | 'facts' | 'threads';
export const LIST_FIELDS: readonly ListField[] = ['items', 'facts', 'threads'];
export const CHARACTER_FIELDS = ['affinity', 'status', 'notes', 'at'] as const;
export type CharacterField = (typeof CHARACTER_FIELDS)[number];
/** Fields a scribe patch may carry; anything else is rejected whole. */
export const PATCH_FIELDS = ['time', 'location', 'characters', 'items', 'facts', 'threads', 'variables'] as const;

export interface MergeResult {
  state: SceneState;
  warnings: string[];
}
