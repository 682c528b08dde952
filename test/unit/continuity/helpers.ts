// Shared scene builders for the continuity tests: one Chinese and one English scene with a
// present pair, someone away, someone who left (roster only), someone dead, and an item in hand.
import type { CharacterState, SceneState } from '../../../src/state/types';
import type { CheckInput } from '../../../src/continuity/types';

export function ch(at: string, status = '', notes = ''): CharacterState {
  return { affinity: 0, status, notes, at };
}

export function scene(o: Partial<Omit<SceneState, 'roster'>> & { roster?: string[] }): SceneState {
  const characters = o.characters ?? {};
  const rosterNames = o.roster ?? Object.keys(characters);
  return {
    time: o.time ?? '',
    location: o.location ?? '',
    characters,
    items: o.items ?? [],
    facts: [],
    threads: [],
    roster: { characters: Object.fromEntries([...new Set([...rosterNames, ...Object.keys(characters)])].map((n) => [n, ''])), locations: {}, items: {}, threads: {} },
  };
}

/** 茶馆, 傍晚: 林砚 and 白露 here (白露 dead), 青梧 at 渡口, 沈舟 left; 青梧 holds the watch. */
export function zhScene(): SceneState {
  return scene({
    time: '傍晚（雨中）',
    location: '茶馆',
    characters: { 林砚: ch('茶馆'), 青梧: ch('渡口'), 白露: ch('茶馆', '已死', '昨夜遇害') },
    items: ['黄铜怀表（青梧持有）'],
    roster: ['林砚', '青梧', '白露', '沈舟'],
  });
}

/** The inn, evening: Elara and Tom here (Tom dead), Mira at the docks, Corwin left; Elara holds the watch. */
export function enScene(): SceneState {
  return scene({
    time: 'evening',
    location: 'the inn',
    characters: { Elara: ch('the inn'), Mira: ch('the docks'), Tom: ch('the inn', 'dead', 'killed in the fire') },
    items: ['brass watch (held by Elara)'],
    roster: ['Elara', 'Mira', 'Tom', 'Corwin'],
  });
}

export function input(text: string, lang: 'zh' | 'en', over: Partial<CheckInput> = {}): CheckInput {
  const st = lang === 'zh' ? zhScene() : enScene();
  return { prose: [{ file: 'ch1.md', text }], before: st, after: over.after ?? (lang === 'zh' ? zhScene() : enScene()), lang, ...over };
}
