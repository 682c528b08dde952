// What the novelist is told of each Story event: how loud, which words, which button. The words
// are English keys marked with `l10n.t` here and translated by the shell through VS Code's l10n
// (l10n/bundle.l10n.zh-cn.json; test/unit/l10n.test.ts checks every key has a translation), so
// which event says what is decided, and tested, in plain Node.
import { TurnBusyError } from '../agent/turnTypes';
import type { CompactOutcome } from '../memory/sessionMemory';
import type { Lang } from '../state/types';
import type { StaleReason } from './answer';
import { ofCount, type Say, type Text } from '../common/text';
import type { RestoreResult } from '../checkpoints';
import type { ModelProblem } from '../model/problem';
import type { ScribeStatus } from '../protocol/state';
import type { ChatVerb, ScribeProblem, StoryEvent, TurnNotice, UndoOffer } from './host';
import { checkpointProblemWords, modelProblemWords, sayWords, scribeProblemWords } from './problemWords';

export type { Text } from '../common/text';
export { sayWords } from './problemWords';

export interface Words {
  readonly level: 'info' | 'warning' | 'error';
  readonly text: Text;
  /** A second sentence after `text` (why, and what to do); the shell shows both (`sayWords`). */
  readonly more?: Text;
  /** Appended untranslated (file names). */
  readonly suffix?: string;
  /** An Undo button that takes back this offer. */
  readonly undo?: UndoOffer;
  /** Shown once per distinct text in a window; `rebuild` adds Rebuild Checkpoints. */
  readonly once?: { rebuild: boolean };
}

/** The Chat's notice line: words and the button that is the way out (none while work is under way). */
export interface NoticeWords {
  readonly kind: 'error' | 'info';
  readonly text: Text;
  /** A second sentence (the context window's size). */
  readonly more?: Text;
  /** Appended untranslated: the provider's own message. */
  readonly suffix?: string;
  readonly action?: 'setKey' | 'retry' | 'selectModel';
}

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

/** The words of an event; undefined for those the shell shows otherwise (redraws, the store's own reason). */
export function eventWords(event: StoryEvent, lang: Lang): Words | undefined {
  const say = (level: Words['level'], text: Text): Words => ({ level, text });
  switch (event.kind) {
    case 'live': case 'turnEnded': case 'scribe': case 'unavailable':
      return undefined;
    case 'saved':
      return say('info', event.fork
        ? l10n.t('Saved "{0}". The story went another way here, so a new worldline begins: {1}.', event.entry.name, event.entry.worldlineName)
        : l10n.t('Saved "{0}" on {1}.', event.entry.name, event.entry.worldlineName));
    case 'compacted':
      return compactedWords(event.outcome, event.problem);
    case 'readOnly':
      return say('warning', l10n.t('This window is read-only: another VS Code window is writing this novel.'));
    case 'nothingToRegenerate':
      return say('info', l10n.t('There is no reply to regenerate yet.'));
    case 'replyCopyStopped':
      return say('warning', l10n.t('The branch changed while the edited reply was being copied, so the copy stops there.'));
    case 'noCheckpoint':
      return say('info', l10n.t('There is no checkpoint to restore yet: one is taken at the end of every agent turn.'));
    case 'busy':
      return say('warning', l10n.t('Wait until the agent has finished writing, or stop it, before restoring.'));
    case 'busyVerb':
      // The words the turn runner's own refusal uses, so every busy refusal reads the same.
      return say('warning', literal(new TurnBusyError(verbText(event.verb, lang), lang).message));
    case 'instructionWaiting':
      return say('warning', l10n.t('An instruction is already waiting for the scribe to finish. Cancel it first, or wait until it is in the chat.'));
    case 'restored': {
      const { result, withChat } = event;
      const [w, d] = [result.written.length, result.deleted.length];
      const text = withChat
        ? ofCount(w, l10n.t('Prose and chat restored: {0} file written, {1} removed.', w, d), l10n.t('Prose and chat restored: {0} files written, {1} removed.', w, d))
        : ofCount(w, l10n.t('Prose restored: {0} file written, {1} removed. The chat stays where it is.', w, d), l10n.t('Prose restored: {0} files written, {1} removed. The chat stays where it is.', w, d));
      return { level: 'info', text, suffix: fileNames(result), ...(event.undo ? { undo: event.undo } : {}) };
    }
    case 'branched': {
      const n = event.laterTurns;
      const text = ofCount(n, l10n.t('Branched from here: {0} later turn is kept as a variant.', n), l10n.t('Branched from here: {0} later turns are kept as a variant.', n));
      const r = event.restored;
      if (!r) return { level: 'info', text, undo: event.undo };
      const [w, d] = [r.written.length, r.deleted.length];
      const more = ofCount(w, l10n.t('The prose followed: {0} file written, {1} removed.', w, d), l10n.t('The prose followed: {0} files written, {1} removed.', w, d));
      return { level: 'info', text, more, suffix: fileNames(r), undo: event.undo };
    }
    case 'chatOnlyLoad':
      return { level: 'warning', text: l10n.t('This save was made before any checkpoint, so its prose cannot be restored: only the chat went back to it, and the manuscript stays as it is. Undo moves the chat back.'), undo: event.undo };
    case 'restoreFailed':
      // Without a code: the store's own message, written for the novelist (in English).
      return event.code
        ? { level: 'error', ...checkpointProblemWords(l10n.t('The restore failed.'), event.code, event.message) }
        : say('error', literal(event.message));
    case 'followBlocked':
      return event.code
        ? { level: 'warning', ...checkpointProblemWords(l10n.t('The prose did not follow the branch.'), event.code, event.message) }
        : say('warning', literal(event.message));
    case 'staleAnswer':
      return say('info', staleAnswerWords(event.reason));
    case 'staleUndoButton':
      return say('info', l10n.t('The story moved on since that restore, so this Undo button no longer applies and nothing was changed. To take the restore back anyway, run "Worldline: Undo Last Restore".'));
    case 'undone': {
      const [w, d] = [event.result.written.length, event.result.deleted.length];
      return say('info', event.chatStays
        ? ofCount(w,
          l10n.t('Restore undone: {0} file written, {1} removed. That restore was made before this window opened, so the chat stays where it is.', w, d),
          l10n.t('Restore undone: {0} files written, {1} removed. That restore was made before this window opened, so the chat stays where it is.', w, d))
        : ofCount(w, l10n.t('Restore undone: {0} file written, {1} removed.', w, d), l10n.t('Restore undone: {0} files written, {1} removed.', w, d)));
    }
    case 'undoneChatOnly':
      return say('info', l10n.t('The chat is back where it was. The prose was not touched.'));
    case 'undoNotNewest':
      return say('info', l10n.t('Only the most recent restore can be undone, and this one is not the most recent any more.'));
    case 'undoGone':
      return say('warning', l10n.t('The last restore can no longer be undone: the checkpoint store changed since. Nothing was changed.'));
    case 'nothingToUndo':
      return say('info', l10n.t('There is no restore to undo.'));
    case 'undoFailed':
      return event.code
        ? { level: 'error', ...checkpointProblemWords(l10n.t('Undo failed.'), event.code, event.message) }
        : say('error', l10n.t('Undo failed: {0}', event.message));
    case 'checkpointSkipped':
      return event.code
        ? { level: 'warning', ...checkpointProblemWords(l10n.t('No checkpoint was taken; your writing goes on as usual.'), event.code, event.message), once: { rebuild: event.corrupt } }
        : { level: 'warning', text: l10n.t('No checkpoint was taken; your writing goes on as usual. {0}', event.message), once: { rebuild: event.corrupt } };
    default:
      return unreachable(event);
  }
}

/** The notice line under the messages, for why the last turn did not end well. */
export function noticeWords(notice: TurnNotice): NoticeWords {
  switch (notice.kind) {
    case 'noModel':
      return { kind: 'error', text: l10n.t('Choose a model first (Worldline: Select Model), and set your API key if the endpoint needs one.'), action: 'selectModel' };
    case 'keyWithheld':
      return { kind: 'error', text: l10n.t('Your API key was set for {0}, but worldline.baseUrl now points to {1}, so it was not sent. Run Set API Key for the new endpoint (an empty key removes the old one), or change the setting back.', notice.setFor, notice.endpoint), action: 'setKey' };
    case 'failed': {
      const action = notice.auth ? 'setKey' : 'retry';
      if (notice.problem) {
        const context = { ...(notice.recovery ? { recovery: notice.recovery } : {}), ...(notice.contextWindow ? { contextWindow: notice.contextWindow } : {}) };
        return { kind: 'error', ...modelProblemWords(notice.problem, context), action };
      }
      return { kind: 'error', text: notice.message !== undefined ? literal(notice.message) : l10n.t('The turn failed.'), action };
    }
    case 'stopped':
      return notice.kept
        ? { kind: 'info', text: l10n.t('Stopped. The partial reply is kept; Retry writes the turn again.'), action: 'retry' }
        : { kind: 'info', text: l10n.t('Stopped before the model wrote anything. Retry writes the turn again.'), action: 'retry' };
    case 'compacting':
      return { kind: 'info', text: l10n.t('The conversation has grown longer than the model\'s context window: the older turns are being summarised, then the turn is written again.') };
    case 'compacted':
      return { kind: 'info', text: l10n.t('The conversation had grown longer than the model\'s context window, so the older turns were summarised and the turn was written again.') };
  }
}

/** The question before a regenerate that leaves later turns behind, and its buttons. */
export interface LeaveTurnsWords {
  readonly question: Text;
  readonly detail: Text;
  readonly regenerate: Text;
  readonly dontAskAgain: Text;
}

export function leaveTurnsWords(turns: number): LeaveTurnsWords {
  return {
    question: l10n.t('Regenerate this reply?'),
    detail: ofCount(turns,
      l10n.t('{0} later turn leaves this branch. It is kept as a variant: ◀ on the new reply brings it back, with its prose.', turns),
      l10n.t('{0} later turns leave this branch. They are kept as a variant: ◀ on the new reply brings them back, with their prose.', turns)),
    regenerate: l10n.t('Regenerate'),
    dontAskAgain: l10n.t('Don\'t Ask Again'),
  };
}

/** Which files a restore touched, not only how many: the first few by name (a "−" marks a removed one). */
function fileNames(result: RestoreResult): string {
  const names = [...result.written, ...result.deleted.map((f) => `−${f}`)];
  return names.length === 0 ? '' : ` (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`;
}

/**
 * The scribe's status as the Scene State view shows it: a failure worded from its problem (the
 * status keeps the English message for the log), else as it is.
 */
export function scribeStatusWords(status: ScribeStatus, problem: ScribeProblem | undefined, say: Say): ScribeStatus {
  if (!problem || !status.last || status.last.kind !== 'failed') return status;
  return { ...status, last: { ...status.last, error: sayWords(scribeProblemWords(problem), say) } };
}

function compactedWords(outcome: CompactOutcome, problem: ModelProblem | undefined): Words {
  switch (outcome.kind) {
    case 'skipped': return { level: 'info', text: literal(outcome.text) };
    case 'noMemory': return { level: 'warning', text: l10n.t('The summary was not written: the memory store of this session cannot be opened (see the Worldline log).') };
    case 'applied': return { level: 'info', text: l10n.t('Summary written: the older turns are now carried as a summary on this branch.') };
    case 'failed': {
      if (!problem) return { level: 'warning', text: l10n.t('The summary failed: {0}', outcome.error.message) };
      const w = modelProblemWords(problem);
      return { level: 'warning', text: l10n.t('The summary was not written: its model call failed.'), more: w.text, ...(w.suffix ? { suffix: w.suffix } : {}) };
    }
    case 'stale': return { level: 'info', text: l10n.t('The branch changed while the summary was written, so it was dropped.') };
    case 'readOnly': return { level: 'warning', text: l10n.t('This window is read-only: another VS Code window is writing this novel.') };
  }
}

function staleAnswerWords(reason: StaleReason): Text {
  return reason === 'busy'
    ? l10n.t('The agent started writing while this question was waiting, so nothing was restored: the prose stays as it is.')
    : l10n.t('The story moved on while this question was waiting, so nothing was restored: the prose stays as it is. Choose again from where you are now.');
}

const VERBS: Record<ChatVerb, { en: string; zh: string }> = {
  'switch variants': { en: 'switch variants', zh: '切换变体' },
  hide: { en: 'hide', zh: '隐藏' },
  edit: { en: 'edit', zh: '编辑' },
  branch: { en: 'branch', zh: '分支' },
  'send a message': { en: 'send a message', zh: '发送消息' },
  regenerate: { en: 'regenerate', zh: '重新生成' },
  retry: { en: 'retry', zh: '重试' },
  save: { en: 'save', zh: '存档' },
  compact: { en: 'compact', zh: '压缩' },
};

/** A verb in the project's language, as the busy refusal names it. */
export function verbText(verb: ChatVerb, lang: Lang): string {
  return VERBS[verb][lang];
}

function unreachable(event: never): never {
  throw new Error(`no words for ${JSON.stringify(event)}`);
}
