// The runner's scribe hook wired to `runScribe` on a session: ledger and last warnings at the turn's
// end, leaf guard against the live session, the new state appended as a `state` entry.
import type { ChatCompleter } from '../model/types';
import type { StateEntry } from '../session/entries';
import type { Session } from '../session/session';
import { runScribe, type ScribeOutcome } from '../state/scribeRun';
import { stateAt } from '../state/stateAt';
import type { Lang } from '../state/types';
import type { ScribeInfo } from './turnTypes';

export interface ScribeHookOptions {
  session: Session;
  /** The non-streaming client (src/model/chatClient.ts). */
  client: ChatCompleter;
  /** The scribe's model setting (defaults to the main model upstream). */
  model: string;
  opening: unknown;
  lang: Lang;
  /** True when worldline.yaml defines variables. */
  hasVariables: boolean;
  temperature?: number;
  /** Told of the state entry the scribe appended (the continuity check stores its findings on it). */
  onAppended?(entry: StateEntry, info: ScribeInfo): void;
}

export function createScribeHook(opts: ScribeHookOptions): (info: ScribeInfo) => Promise<ScribeOutcome> {
  const { session, opening, lang } = opts;
  return (info) => {
    const at = stateAt(session.path(info.leafBefore), opening, { lang });
    const deps: Parameters<typeof runScribe>[0] = {
      client: opts.client,
      model: opts.model,
      getLeafId: () => session.leafId,
      isAncestorOrSelf: (a, b) => session.isAncestorOrSelf(a, b),
      // The guard runs inside the session's write queue: a navigation queued meanwhile is seen.
      appendState: async (e, guard) => {
        const entry = await session.append({ type: 'state', state: e.state, by: e.by, warnings: e.warnings }, { guard });
        opts.onAppended?.(entry as StateEntry, info);
        await session.flush(); // the turn's record is durable once its state is
      },
      // A ledger edit the novelist made on this chain during the call is merged onto, not lost.
      getCurrentState: () => stateAt(session.path(), opening, { lang }).state,
      signal: info.signal,
    };
    if (opts.temperature !== undefined) deps.temperature = opts.temperature;
    return runScribe(deps, {
      state: at.state,
      warnings: at.lastWarnings,
      instruction: info.instruction,
      proseAdded: info.proseAdded,
      reply: info.reply,
      lang,
      hasVariables: opts.hasVariables,
      turnFinishedNormally: true,
    });
  };
}
