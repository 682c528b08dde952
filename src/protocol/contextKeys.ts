// Worldline's context keys: which commands the palette offers and which can run now (package.json's
// `when` and `enablement` clauses read them). Decided here from plain inputs: the open novel, the
// Story of the open session, and the worldline view. The shell sets a key only when its value
// changes (src/views/contextKeys.ts).
import type { Entry } from '../session/entries';
import type { WorldlineView } from '../worldline/view';

export const CONTEXT_KEYS = [
  /** The folder is a Worldline novel (it has worldline.yaml). */
  'worldline.isNovel',
  /** A session of the novel is open. */
  'worldline.hasSession',
  /** The agent is writing a turn: the verbs that move the story wait. */
  'worldline.busy',
  /** The novel has a save point to load, rename, compare, export or delete. */
  'worldline.hasSaves',
  /** The last turn failed or was stopped and can be written again. */
  'worldline.canRetry',
  /** The branch has a checkpoint the store still holds: restores and turn changes have something to act on. */
  'worldline.hasCheckpoints',
  /** The versions of an editor writing tool are being reviewed: Accept, Previous / Next, Discard apply. */
  'worldline.reviewingVersions',
] as const;

export type ContextKey = (typeof CONTEXT_KEYS)[number];
export type ContextValues = Record<ContextKey, boolean>;

/** What the Story of the open session tells (src/story/story.ts). */
export interface StoryFacts {
  readonly busy: boolean;
  readonly canRetry: boolean;
  /** The checkpoint commits the store no longer holds. */
  readonly lostCheckpoints: ReadonlySet<string>;
  /** The branch, root to leaf. */
  readonly path: readonly Entry[];
}

export interface ContextInputs {
  /** The folder has worldline.yaml. */
  readonly novel: boolean;
  /** The open session's Story; undefined when no session is open. */
  readonly story?: StoryFacts;
  /** The worldline view of the open session (undefined when none). */
  readonly saves?: WorldlineView;
  /** A review of a writing tool's versions is open in the editor. */
  readonly reviewingVersions?: boolean;
}

/** Every key's value. Outside a novel every key is off, so only the commands that need no novel show. */
export function contextValues(inputs: ContextInputs): ContextValues {
  const story = inputs.novel ? inputs.story : undefined;
  const busy = story?.busy ?? false;
  return {
    'worldline.isNovel': inputs.novel,
    'worldline.hasSession': story !== undefined,
    'worldline.busy': busy,
    'worldline.hasSaves': story !== undefined && (inputs.saves?.worldlines.some((l) => l.saves.length > 0) ?? false),
    'worldline.canRetry': !busy && (story?.canRetry ?? false),
    'worldline.hasCheckpoints': story !== undefined && story.path.some((e) => e.type === 'checkpoint' && !story.lostCheckpoints.has(e.commit)),
    'worldline.reviewingVersions': story !== undefined && inputs.reviewingVersions === true,
  };
}

/** The values last set, so that only a change is set again (setContext is a command round trip). */
export class ContextKeyState {
  private readonly last = new Map<ContextKey, boolean>();

  /** The keys whose value differs from the last one set (all of them the first time); remembered as set. */
  changes(next: ContextValues): [ContextKey, boolean][] {
    const out: [ContextKey, boolean][] = [];
    for (const key of CONTEXT_KEYS) {
      const value = next[key];
      if (this.last.get(key) === value) continue;
      this.last.set(key, value);
      out.push([key, value]);
    }
    return out;
  }

  /** A set failed: the next update sets every key again. */
  forget(): void {
    this.last.clear();
  }
}
