// Size limits. They keep the injected block and the scribe's prompt bounded however long the book
// grows, and stop a runaway model reply from bloating the session file.

export const LIMITS = {
  /** Character names, roster keys. */
  name: 60,
  /** time, location, at, and roster first-seen times. */
  place: 80,
  status: 200,
  notes: 500,
  /** One element of items / facts / threads. */
  listItem: 200,
  /** Characters in the scene at once. */
  sceneCharacters: 100,
  list: { items: 60, facts: 100, threads: 60 },
  roster: { characters: 100, locations: 100, items: 60, threads: 60 },
  /** Variables: nesting depth below `variables`, string length, keys/elements per container, total nodes. */
  variableDepth: 8,
  variableString: 2000,
  variableFanout: 200,
  variableNodes: 5000,
  /** Warnings kept per merge (the rest are summarised) so a hostile patch cannot flood the prompt. */
  warnings: 20,
} as const;

/** Keys that would touch prototypes if some later code used plain assignment; never stored. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
