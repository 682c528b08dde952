// The small ports the provider, key, model and setup flows reach VS Code through, besides the
// Prompter (src/protocol/prompter.ts) and the key store (./keyStore.ts): the settings, the command
// registry, a cancellable progress notification, context keys and the log. The flows decide; the
// shell (src/views/shellPorts.ts) only carries these out.
import type { Say, Text } from '../common/text';
import type { Level, Prompter } from '../protocol/prompter';
import type { WorldlineSettings } from './settings';

/**
 * Where a written setting goes: `workspace`, the open folder's settings; `novel`, the novel's own
 * settings, or the user's when no folder is open (there are no folder settings then).
 */
export type SettingScope = 'workspace' | 'novel';

/** The `worldline.*` settings the flows write. */
export type WrittenSetting = 'provider' | 'baseUrl' | 'model';

export interface SettingsPort {
  /** The current snapshot. */
  read(): WorldlineSettings;
  /** A `worldline.*` setting as written, before the snapshot's checks (e.g. `customHeaders`). */
  raw(name: string): unknown;
  write(name: WrittenSetting, value: string, scope: SettingScope): PromiseLike<void>;
}

export interface CommandPort {
  run(command: string, ...args: unknown[]): PromiseLike<unknown>;
}

/** A notification with a progress bar and a Cancel button; cancelling aborts the signal. */
export type Progress = <T>(title: Text, work: (signal: AbortSignal) => Promise<T>) => PromiseLike<T>;

/** VS Code's context keys (the walkthrough's steps complete on them). */
export type SetContext = (key: string, value: boolean) => PromiseLike<unknown>;

export interface FlowLog {
  info(message: string): void;
  warn(message: string): void;
}

/** What the novelist is asked and told through, and how composed words are put into their language. */
export interface Asking {
  prompter: Prompter;
  /** Translates a `Text`, for words the flows join into one line (a description, a report). */
  say: Say;
  commands: CommandPort;
  log: FlowLog;
}

/** Words shown as they are (a provider's or a model's name, a URL, already-translated words). */
export function literal(message: string): Text {
  return { message, args: [], literal: true };
}

/** The object a command was given, or nothing: commands run from the palette get no argument. */
export function commandArgs<T extends object>(raw: unknown): Partial<T> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Partial<T>) : {};
}

/**
 * A notification whose button runs a command, clicked perhaps long after (it waits in the bell).
 * Nobody awaits it: a failure of the notification or of the command is logged as `what`.
 */
export function offerCommand(a: Pick<Asking, 'prompter' | 'commands' | 'log'>, level: Level, text: Text, button: Text, command: string, args: readonly unknown[], what: string): void {
  void Promise.resolve(a.prompter.notify(level, text, button))
    .then((pick) => (pick !== undefined && pick.message === button.message ? a.commands.run(command, ...args) : undefined))
    .then(undefined, (err: unknown) => a.log.warn(`${what} failed: ${err instanceof Error ? err.message : String(err)}`));
}

/** A notification without buttons that nobody awaits; a failure is logged (where there is a log). */
export function tell(a: { prompter: Prompter; log?: FlowLog }, level: Level, text: Text): void {
  void Promise.resolve(a.prompter.notify(level, text))
    .then(undefined, (err: unknown) => a.log?.warn(`a notification failed: ${err instanceof Error ? err.message : String(err)}`));
}
