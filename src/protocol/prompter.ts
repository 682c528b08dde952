// The port through which a command's flow asks the novelist (DESIGN, "Story and Branch": the core
// asks the editor through a port). A flow in the core decides what to ask, in what order, what an
// answer means and what to say; the shell shows it with VS Code's quick pick, input box and
// notifications, translating every `Text` (English keys marked with `l10n.t` in the core file).
import type { Text } from '../common/text';

export interface PickItem<T> {
  readonly label: Text;
  readonly description?: Text;
  readonly detail?: Text;
  readonly value: T;
}

export interface PickOptions {
  readonly title: Text;
  readonly placeHolder?: Text;
  readonly matchOnDescription?: boolean;
  readonly matchOnDetail?: boolean;
}

export interface AskOptions {
  readonly title: Text;
  readonly prompt?: Text;
  /** Shown in the empty box (what Escape means, say). */
  readonly placeHolder?: Text;
  readonly value?: string;
  readonly password?: boolean;
  /** Kept open when focus moves away (a key being copied from a browser). */
  readonly ignoreFocusOut?: boolean;
  /** Undefined when the text is acceptable, else why not. */
  readonly validate?: (value: string) => Text | undefined;
}

export type Level = 'info' | 'warning' | 'error';

export interface Prompter {
  /** One choice, or undefined when the novelist closed the pick. */
  pick<T>(items: readonly PickItem<T>[], options: PickOptions): Promise<T | undefined>;
  /** A line of text, or undefined when cancelled. */
  ask(options: AskOptions): Promise<string | undefined>;
  /** A notification; resolves with the button clicked (perhaps much later), or undefined. */
  notify(level: Level, text: Text, ...buttons: Text[]): Promise<Text | undefined>;
}
