// Which turn a checkpoint verb acts on, when the palette ran it without one (Restore Prose Only,
// Restore Prose and Chat, Show Turn Changes, Compare Current Prose with Checkpoint): a pick of the
// current branch's turns that ended with a checkpoint, newest first, each named by its number
// along the branch, the first words of its instruction, the in-story time after it, the files it
// changed and when. The Chat's buttons name their checkpoint, so they are never asked.
//
// A turn's checkpoint is the first one after its instruction (as Branch's `Turn.checkpoint` and
// the Chat's restore buttons); a checkpoint before the first instruction is the opening's. With
// both counted, an empty pick means the branch has no checkpoint at all, so the verb itself says
// so in its usual words. A checkpoint whose commit the store lost is shown marked, and refused
// with a word when picked: the novelist sees the turn is there and why it cannot be used.
import { firstWords } from '../common/firstWords';
import { pickText } from '../common/pickText';
import { relativeTime } from '../common/relativeTime';
import { ofCount, type Text } from '../common/text';
import type { PickItem, Prompter } from '../protocol/prompter';
import type { ChainEntry, CheckpointEntry, StateEntry } from '../session/entries';
import { checkState } from '../state/schema';
import type { SceneState } from '../state/types';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export type TurnAction = 'restoreProse' | 'restoreProseAndChat' | 'showChanges' | 'compare';

/** What the pick reads of the Story (a `Story` is one). */
export interface TurnPickStory {
  /** The current branch: its entries, root first. */
  branch(): { readonly path: readonly ChainEntry[] };
  /** An entry's text with its edit applied. */
  readonly session: { textOf(id: string): string };
  /** Checkpoint commits the store no longer has. */
  readonly lostCheckpoints: ReadonlySet<string>;
  /** The novel's opening scene, for the opening's in-story time. */
  readonly host?: { project(): { readonly branchOptions: { readonly opening: { readonly time: string } } } };
}

export interface TurnPick {
  /** 1, 2, … along the branch; 0 for the opening (before the first instruction). */
  readonly turn: number;
  readonly checkpointEntryId: string;
  readonly lost: boolean;
}

export interface TurnPickOptions {
  textOf(id: string): string;
  readonly lost: ReadonlySet<string>;
  /** Epoch ms, for "5 minutes ago". */
  readonly now: number;
  /** The opening scene's time (worldline.yaml): the in-story time before any turn. */
  readonly openingTime?: string;
}

interface FoundTurn {
  turn: number;
  user?: ChainEntry;
  checkpoint: CheckpointEntry;
  time: string;
}

/** The pick's items: the branch's turns with a checkpoint, newest first. */
export function turnPickItems(path: readonly ChainEntry[], options: TurnPickOptions): PickItem<TurnPick>[] {
  return turnsWithCheckpoint(path, options.openingTime ?? '').reverse().map((t) => {
    const lost = options.lost.has(t.checkpoint.commit);
    const words = t.user ? pickText(firstWords(options.textOf(t.user.id))) : '';
    const item: PickItem<TurnPick> = {
      label: t.turn === 0 ? l10n.t('The opening, before the first instruction')
        : words ? l10n.t('Turn {0} · {1}', t.turn, words) : l10n.t('Turn {0}', t.turn),
      // The opening's checkpoint holds the whole book as it stood, so no count of changed files.
      description: lost ? lostWords(t.time) : t.turn === 0 ? timeWords(t.time) : filesWords(t.checkpoint.changed.length, t.time),
      detail: relativeTime(t.checkpoint.ts, options.now),
      value: { turn: t.turn, checkpointEntryId: t.checkpoint.id, lost },
    };
    return item;
  });
}

/** One pass along the path: each instruction's first checkpoint, and the scene time when its turn ends. */
function turnsWithCheckpoint(path: readonly ChainEntry[], openingTime: string): FoundTurn[] {
  const found: FoundTurn[] = [];
  let turn = 0;
  let user: ChainEntry | undefined;
  let checkpoint: CheckpointEntry | undefined;
  let time = openingTime;
  // State entries since the turn began: only the newest valid one counts, so only it is checked.
  let states: StateEntry[] = [];
  const close = () => {
    for (let i = states.length - 1; i >= 0; i--) {
      const state = (states[i] as StateEntry).state;
      // A damaged state is skipped, as the Scene State skips it.
      if (checkState(state).length === 0) {
        time = (state as SceneState).time;
        break;
      }
    }
    states = [];
    if (checkpoint) found.push({ turn, ...(user ? { user } : {}), checkpoint, time });
  };
  for (const e of path) {
    if (e.type === 'user') {
      close();
      turn += 1;
      user = e;
      checkpoint = undefined;
    } else if (e.type === 'checkpoint') {
      // Before the first instruction the last checkpoint is the opening's prose; in a turn, the first.
      if (turn === 0 || !checkpoint) checkpoint = e;
    } else if (e.type === 'state') {
      states.push(e);
    }
  }
  close();
  return found;
}

function filesWords(count: number, time: string): Text {
  const shown = pickText(firstWords(time, { width: 32 }));
  if (count === 0) return shown ? l10n.t('{0} · no file changed', shown) : l10n.t('no file changed');
  return shown
    ? ofCount(count, l10n.t('{0} · {1} file changed', shown, count), l10n.t('{0} · {1} files changed', shown, count))
    : ofCount(count, l10n.t('{0} file changed', count), l10n.t('{0} files changed', count));
}

function timeWords(time: string): Text {
  const shown = pickText(firstWords(time, { width: 32 }));
  return shown ? l10n.t('{0} · the prose as it stood', shown) : l10n.t('the prose as it stood');
}

function lostWords(time: string): Text {
  const shown = pickText(firstWords(time, { width: 32 }));
  return shown ? l10n.t('checkpoint lost · {0}', shown) : l10n.t('checkpoint lost');
}

const TITLES: Record<TurnAction, Text> = {
  restoreProse: l10n.t('Restore prose to which turn?'),
  restoreProseAndChat: l10n.t('Restore prose and chat to which turn?'),
  showChanges: l10n.t('Show the changes of which turn?'),
  compare: l10n.t('Compare the current prose with which turn?'),
};

/** What a turn verb acts on: `{}` lets the verb say there is no checkpoint; undefined does nothing. */
export interface TurnTarget {
  readonly checkpointEntryId?: string;
}

export interface TurnPickHost {
  readonly prompter: Prompter;
  /** Epoch ms; default Date.now. */
  now?(): number;
}

/**
 * The checkpoint a turn verb acts on: the entry id its caller passed (the Chat's buttons), else
 * the one the novelist picks. Escape, or a lost checkpoint picked (refused with a word): undefined.
 */
export async function turnToActOn(arg: unknown, story: TurnPickStory | undefined, action: TurnAction, host: TurnPickHost): Promise<TurnTarget | undefined> {
  if (typeof arg === 'string' && arg !== '') return { checkpointEntryId: arg };
  if (!story) return {};
  const items = turnPickItems(story.branch().path, {
    textOf: (id) => story.session.textOf(id),
    lost: story.lostCheckpoints,
    now: host.now?.() ?? Date.now(),
    ...(story.host ? { openingTime: story.host.project().branchOptions.opening.time } : {}),
  });
  if (items.length === 0) return {};
  const picked = await host.prompter.pick(items, {
    title: TITLES[action],
    placeHolder: l10n.t('Newest first. Type to filter by the instruction\'s words.'),
    matchOnDescription: true,
  });
  if (!picked) return undefined;
  if (picked.lost) {
    void host.prompter.notify('warning', picked.turn === 0
      ? l10n.t('The checkpoint of the opening was lost with the old checkpoint store: its prose can no longer be restored or compared.')
      : l10n.t('The checkpoint of turn {0} was lost with the old checkpoint store: its prose can no longer be restored or compared.', picked.turn));
    return undefined;
  }
  return { checkpointEntryId: picked.checkpointEntryId };
}
