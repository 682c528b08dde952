// Shared builders for the state tests.
import { openingState } from '../../../src/state/opening';
import type { SceneState } from '../../../src/state/types';

/** The seed's opening: 听雨轩 at night, 青梧 present. */
export function seedOpening(): SceneState {
  return openingState({ time: '夜里', location: '听雨轩', characters: ['青梧'] });
}

/** The first real scribe patch of the seed run (as the seed describes it). */
export const SEED_PATCH_1 = {
  time: '傍晚（雨中）',
  location: '青梧的客栈（檐外下雨）',
  characters: {
    青梧: { affinity: 5, status: '收留了避雨的林砚', notes: '客栈老板娘，随身带着黄铜怀表', at: '青梧的客栈' },
    林砚: { affinity: 0, status: '浑身湿透，借宿客栈', notes: '', at: '青梧的客栈' },
  },
  items: ['黄铜怀表（青梧持有）'],
  threads: ['林砚似乎认得那只怀表'],
};

export function names(o: Record<string, unknown>): string[] {
  return Object.keys(o);
}
