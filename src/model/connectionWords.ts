// What Test Connection tells the novelist, decided here and worded in the shell: English keys
// marked with `l10n.t` (translated through VS Code's l10n; test/unit/l10n.test.ts checks every key
// has a Chinese translation), how loud, and the button that is the way out.
import type { Text } from '../common/text';
import type { ConnectionReport } from './connectionTest';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface ConnectionWords {
  level: 'info' | 'warning' | 'error';
  /** Sentences, in order; the shell joins them. */
  lines: Text[];
  /** The command that fixes what went wrong, when there is one. */
  action?: 'setKey' | 'selectModel' | 'chooseProvider';
}

/** Grouped digits, the same in both languages (128,000). */
function tokens(n: number): string {
  return n.toLocaleString('en-US');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

export function connectionWords(r: ConnectionReport): ConnectionWords {
  if (!r.answered) return failureWords(r);
  const lines: Text[] = [l10n.t('Connected to {0} ({1}) in {2} s.', r.host, r.answeredBy ?? r.model, seconds(r.elapsedMs))];
  if (r.tools === 'called') lines.push(l10n.t('Tools work: the model called the test tool.'));
  else if (r.tools === 'cut') lines.push(l10n.t('The reply was cut off at its token cap before the model called the test tool, so whether tools work is not known. Test again.'));
  else lines.push(l10n.t('The model answered but did not call the test tool. Worldline writes into the manuscript through tool calls: choose a model that supports tools (function calling).'));
  if (r.thinking) {
    lines.push(r.reasoningTokens !== undefined && r.reasoningTokens > 0
      ? l10n.t('Thinking is on: the model reasoned before answering ({0} reasoning tokens).', tokens(r.reasoningTokens))
      : l10n.t('Thinking is on: the model sent its reasoning.'));
  } else {
    lines.push(l10n.t('Thinking: none seen in this reply.'));
  }
  if (r.contextWindow) {
    lines.push(r.contextWindow.source === 'endpoint'
      ? l10n.t('Context window: {0} tokens (as the endpoint reports it).', tokens(r.contextWindow.tokens))
      : l10n.t('Context window: {0} tokens (from the provider\'s documentation).', tokens(r.contextWindow.tokens)));
  } else {
    lines.push(l10n.t('Context window: not known for this model.'));
  }
  if (r.warning === 'ollamaDefaultContext') {
    lines.push(l10n.t('Ollama runs models with a 4,096-token context unless OLLAMA_CONTEXT_LENGTH is raised, and cuts longer prompts without a word: raise it (Ollama\'s docs, "Context length") before writing.'));
  }
  return { level: r.tools === 'called' ? 'info' : 'warning', lines, ...(r.tools === 'notCalled' ? { action: 'selectModel' as const } : {}) };
}

function failureWords(r: ConnectionReport): ConnectionWords {
  const e = r.error;
  const status = e?.status !== undefined ? String(e.status) : '—';
  switch (e?.kind) {
    case 'auth':
      return {
        level: 'error',
        lines: [r.keySent
          ? l10n.t('{0} rejected the API key ({1}). Set the right key for this endpoint with Set API Key.', r.host, status)
          : l10n.t('{0} asks for an API key, and none is set for it. Set one with Set API Key.', r.host)],
        action: 'setKey',
      };
    case 'billing':
      return { level: 'error', lines: [l10n.t('{0} says the account\'s balance is used up. Top it up on the provider\'s site, then test again.', r.host)] };
    case 'rateLimit':
      return { level: 'warning', lines: [l10n.t('{0} is rate limiting requests. Wait a moment, then test again.', r.host)] };
    case 'server':
      return { level: 'error', lines: [l10n.t('{0} failed on its side ({1}). Test again later.', r.host, status)] };
    case 'network':
      return { level: 'error', lines: [l10n.t('Could not reach {0}. Check the base URL and your network, and that the server is running.', r.host)], action: 'chooseProvider' };
    case 'aborted':
      return { level: 'info', lines: [l10n.t('The connection test was cancelled.')] };
    default:
      if (e?.status === 404) {
        return { level: 'error', lines: [l10n.t('{0} answered 404: the base URL or the model name "{1}" is wrong.', r.host, r.model)], action: 'selectModel' };
      }
      return {
        level: 'error',
        lines: [l10n.t('{0} refused the test request ({1}). Check the model name "{2}"; the endpoint may not be OpenAI-compatible.', r.host, status, r.model)],
        action: 'selectModel',
      };
  }
}
