// The status bar's "this turn" change in manuscript length. Pure: it is told the turn's phases and
// given a way to count, and works out when to count and what to subtract.
//
// The delta is (count when the turn ended) − (count when the turn's model part started). The
// start is the first 'writing' of a turn, whatever phase came before it: 'idle', or 'scribe' when
// the instruction was sent while the last turn's scribe still ran. Only 'idle' and 'scribe' lie
// outside a turn's model part, so a later 'tool' → 'writing' (the next step of the same turn) does
// not move the start. The start count is taken fresh at that moment, after Regenerate has brought
// the prose back to the checkpoint before the turn, never from an older cached count.
import type { TurnPhase } from './turnTypes';

/** Counts the manuscript; undefined when it could not be counted. Should not reject (a rejection counts as undefined). */
export type CountWords = () => Promise<number | undefined>;

export class TurnWordDelta {
  private inModelPart = false;
  private start: Promise<number | undefined> | undefined;

  constructor(private readonly count: CountWords) {}

  /** Every phase the agent reports (repeats are harmless). Returns true when a start count was taken. */
  phase(phase: TurnPhase): boolean {
    if (phase === 'idle' || phase === 'scribe') {
      this.inModelPart = false;
      return false;
    }
    if (phase !== 'writing' || this.inModelPart) return false;
    this.inModelPart = true;
    this.start = safeCount(this.count);
    return true;
  }

  /**
   * A turn ended (whatever its outcome): counts again and returns the change since the turn's start, or undefined when
   * the turn never reached its model part or either count failed.
   */
  async turnEnded(): Promise<number | undefined> {
    const start = this.start;
    this.start = undefined;
    this.inModelPart = false;
    const end = await safeCount(this.count);
    if (!start) return undefined;
    const before = await start;
    return before === undefined || end === undefined ? undefined : end - before;
  }
}

function safeCount(count: CountWords): Promise<number | undefined> {
  try {
    return count().catch(() => undefined);
  } catch {
    return Promise.resolve(undefined);
  }
}
