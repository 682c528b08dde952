// A model failure as the novelist is told of it: the code and arguments of the ModelError (the
// shell words them, src/story/words.ts), never its English message. The turn loop, the scribe
// and the summariser keep only a failure's message (their outcomes are strings for the log and
// the record), so the Story taps the clients it hands them: the last ModelError each threw is
// kept, and matched to the outcome by its message.
import type { ChatCompleter } from './types';
import { isModelError, type ModelErrorArgs, type ModelErrorCode } from './errors';
import type { StreamingClient } from './streaming';

export interface ModelProblem {
  readonly code: ModelErrorCode;
  readonly args: ModelErrorArgs;
}

/** The problem of a ModelError; undefined for anything else. */
export function problemOf(err: unknown): ModelProblem | undefined {
  return isModelError(err) ? { code: err.code, args: err.args } : undefined;
}

/** Remembers the last ModelError a tapped client threw, with its message. */
export class ErrorTap {
  private last: { message: string; problem: ModelProblem } | undefined;

  /** Forgets what was seen (a new turn starts). */
  clear(): void {
    this.last = undefined;
  }

  /**
   * The problem behind a failure whose text is, or contains, the message of the last ModelError
   * seen (the scribe and the summariser put their own words in front of it); undefined when the
   * failure came from elsewhere (a session write, a malformed tool call).
   */
  problemFor(failure: string | undefined): ModelProblem | undefined {
    if (!this.last || failure === undefined) return undefined;
    return failure.includes(this.last.message) ? this.last.problem : undefined;
  }

  streaming<T extends Pick<StreamingClient, 'stream'>>(client: T): Pick<StreamingClient, 'stream'> {
    return {
      stream: (req, onDelta) => client.stream(req, onDelta).catch((err: unknown) => this.seen(err)),
    };
  }

  completer(client: ChatCompleter): ChatCompleter {
    return { complete: (req) => client.complete(req).catch((err: unknown) => this.seen(err)) };
  }

  private seen(err: unknown): never {
    const problem = problemOf(err);
    if (problem && err instanceof Error) this.last = { message: err.message, problem };
    throw err;
  }
}
