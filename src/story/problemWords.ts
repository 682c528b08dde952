// The words for what went wrong in a model call, a checkpoint or the scribe, from the failure's
// code and arguments (never from its English message): English keys marked with `l10n.t` here and
// translated by the shell (l10n/bundle.l10n.zh-cn.json). What the provider itself said stays a
// detail in its own words, untranslated, with anything that looks like a key masked.
import { CheckpointError, type CheckpointErrorKind } from '../checkpoints/errors';
import type { Say, Text } from '../common/text';
import type { ModelProblem } from '../model/problem';
import type { ContextRecovery, ScribeProblem } from './host';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** A sentence, an optional second one, and an untranslated detail. */
export interface ProblemWords {
  readonly text: Text;
  readonly more?: Text;
  /** Appended untranslated: the provider's own message, or the store's (file names). */
  readonly suffix?: string;
}

/** The whole text, as the shell shows it. */
export function sayWords(w: { readonly text: Text; readonly more?: Text; readonly suffix?: string }, say: Say): string {
  return say(w.text) + (w.more ? ` ${say(w.more)}` : '') + (w.suffix ?? '');
}

/** Bearer tokens and key-shaped strings masked (the clients remove the key itself already). */
export function maskSecrets(text: string): string {
  return text
    .replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1***')
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, '$1-***')
    .replace(/\b(AIza)[A-Za-z0-9_-]{20,}/g, '$1***');
}

function detailSuffix(detail: string | undefined): string | undefined {
  const d = detail?.trim();
  return d ? ` (${maskSecrets(d)})` : undefined;
}

function withSuffix(text: Text, suffix: string | undefined, more?: Text): ProblemWords {
  return { text, ...(more ? { more } : {}), ...(suffix ? { suffix } : {}) };
}

/** What the novelist reads for a failed model call. */
export function modelProblemWords(p: ModelProblem, context: { recovery?: ContextRecovery; contextWindow?: number } = {}): ProblemWords {
  const { host, status, model, seconds, detail } = p.args;
  const h = host ?? '';
  const suffix = detailSuffix(detail);
  switch (p.code) {
    case 'noKey':
      return withSuffix(l10n.t('No API key is set for {0}. Run "Worldline: Set API Key", then retry.', h), suffix);
    case 'auth':
      return withSuffix(l10n.t('{0} did not accept the API key. Run "Worldline: Set API Key" to set a valid key for this endpoint, then retry.', h), suffix);
    case 'insufficientBalance':
      return withSuffix(l10n.t('The account at {0} has run out of balance. Top it up on the provider\'s site, then retry.', h), suffix);
    case 'rateLimit':
      return withSuffix(l10n.t('{0} is limiting requests right now. Wait a moment and retry, or check the quota of your plan.', h), suffix);
    case 'contextLength': {
      const more = context.contextWindow ? l10n.t('The model\'s context window is {0} tokens.', context.contextWindow.toLocaleString('en-US')) : undefined;
      const text = context.recovery === 'retried'
        ? l10n.t('The conversation is still longer than the model\'s context window, even after the older turns were summarised. Hide long messages, or choose a model with a larger window (and set worldline.contextWindow to it), then retry.')
        : context.recovery === 'notCompacted'
          ? l10n.t('The conversation is longer than the model\'s context window, and no older turns could be summarised to make room. Hide long messages, lower worldline.memory.keepRecentTurns, or choose a model with a larger window, then retry.')
          : l10n.t('The text sent to the model is longer than its context window allows.');
      return withSuffix(text, suffix, more);
    }
    case 'timeout':
      return withSuffix(host && seconds
        ? l10n.t('No answer from {0} within {1} s. Check that the server is up, or raise the request timeout, then retry.', host, seconds)
        : l10n.t('The model endpoint did not answer in time. Check that the server is up, or raise the request timeout, then retry.'), suffix);
    case 'network':
      return withSuffix(host
        ? l10n.t('Could not reach {0}, or the connection dropped. Check the base URL and your network, then retry.', host)
        : l10n.t('The connection to the model endpoint failed or dropped. Check the base URL and your network, then retry.'), suffix);
    case 'server':
      return withSuffix(l10n.t('{0} had a problem on its side ({1}). Retry in a while.', h, status ?? ''), suffix);
    case 'notFound':
      return withSuffix(l10n.t('{0} answered 404: check the base URL (it usually ends in /v1) and the model name "{1}".', h, model ?? ''), suffix);
    case 'badRequest':
      return withSuffix(l10n.t('{0} refused the request ({1}). If its message names a setting, change that setting, then retry.', h, status ?? ''), suffix);
    case 'badResponse':
      return withSuffix(host
        ? l10n.t('{0} sent an answer Worldline could not read. Retry, or try another model or endpoint.', host)
        : l10n.t('The model endpoint sent an answer Worldline could not read. Retry, or try another model or endpoint.'), suffix);
    case 'aborted':
      return withSuffix(l10n.t('The model call was stopped.'), undefined);
  }
}

/** What the novelist reads for a checkpoint problem of this kind (after the sentence of what did not happen). */
export function checkpointReason(kind: CheckpointErrorKind): Text {
  switch (kind) {
    case 'gitMissing': return l10n.t('Git was not found or is too old, so checkpoints are off. Install Git 2.20 or newer (https://git-scm.com/downloads), then reload the window.');
    case 'corrupt': return l10n.t('The checkpoint store (.worldline/checkpoints.git) is damaged; your manuscript files are fine. Run "Worldline: Rebuild Checkpoints" to start a new store (the damaged one is kept aside).');
    case 'locked': return l10n.t('Another Git process is using the checkpoint store. If another window has this book open, wait a moment and try again.');
    case 'notFound': return l10n.t('That checkpoint is no longer in the checkpoint store: the store was lost or rebuilt since it was taken. Your manuscript files are as they were.');
    case 'badInput': return l10n.t('Worldline refused a name or path it was given.');
    case 'tooManyFiles': return l10n.t('The "manuscript" patterns in worldline.yaml match too many files, so checkpoints are paused. Narrow the patterns (for example "chapters/**/*.md").');
    case 'closed': return l10n.t('The checkpoint store was rebuilt while this window was open. Reload the window to use the new store.');
    case 'io': return l10n.t('A file could not be read or written.');
    case 'blocked': return l10n.t('Something that is not a Worldline chapter stands where a chapter of the checkpoint goes, so nothing was changed.');
    case 'error': return l10n.t('Git reported an error.');
    case 'lost': return l10n.t('The checkpoint store does not hold the checkpoints this session recorded: it was lost or replaced by another copy. Your manuscript files are fine. If you still have the old store (a backup or a sync copy), close VS Code and put it back; otherwise run "Worldline: Rebuild Checkpoints".');
  }
}

/** `{ code }` of a checkpoint error, to spread into an event; `{}` for anything else (its message is shown as it is). */
export function checkpointCodeOf(err: unknown): { code?: CheckpointErrorKind } {
  return err instanceof CheckpointError ? { code: err.kind } : {};
}

/** Kinds whose store message holds specifics the reason cannot (file names, Git's output): kept as the detail. */
const CHECKPOINT_DETAIL: ReadonlySet<CheckpointErrorKind> = new Set<CheckpointErrorKind>(['badInput', 'io', 'blocked', 'error', 'lost']);

/** The reason and, where it matters, the store's message as the untranslated detail. */
export function checkpointProblemWords(lead: Text, kind: CheckpointErrorKind, message: string): ProblemWords {
  return withSuffix(lead, CHECKPOINT_DETAIL.has(kind) ? detailSuffix(message) : undefined, checkpointReason(kind));
}

/** What the Scene State view says of a failed scribe run. */
export function scribeProblemWords(p: ScribeProblem): ProblemWords {
  switch (p.stage) {
    case 'model': {
      const lead = l10n.t('The scribe could not update the scene state: its model call failed.');
      if (!p.model) return { text: lead };
      const w = modelProblemWords(p.model);
      return withSuffix(lead, w.suffix, w.text);
    }
    case 'parse':
      return { text: l10n.t('The scribe\'s answer was not a scene-state patch, so the scene state was left unchanged. If this repeats, choose a scribe model that follows JSON instructions.') };
    case 'append':
      return { text: l10n.t('The new scene state could not be saved to the session.') };
  }
}
