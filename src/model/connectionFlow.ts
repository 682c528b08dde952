// Test Connection as a command: which model is tested, the one request (./connectionTest.ts) under
// a cancellable progress notification, the log line (never the key), and the report in words
// (./connectionWords.ts) with the button that fixes what went wrong.
import type { Text } from '../common/text';
import { testConnection, type ConnectionReport } from './connectionTest';
import { connectionWords, type ConnectionWords } from './connectionWords';
import { dialectForEndpoint } from './dialects';
import { commandArgs, literal, offerCommand, tell, type Asking, type Progress, type SettingsPort } from './flowPorts';
import type { KeyStore } from './keyStore';
import { requestOptions } from './requestOptions';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface TestConnectionArgs {
  /** Test this model instead of `worldline.model`. */
  model?: string;
  /** No notification (the caller shows the result). */
  quiet?: boolean;
}

export interface ConnectionFlowPorts extends Asking {
  settings: Pick<SettingsPort, 'read'>;
  keys: KeyStore;
  progress: Progress;
}

/** The button of each way out, and the command it runs. */
const ACTIONS: Record<NonNullable<ConnectionWords['action']>, { label: Text; command: string }> = {
  setKey: { label: l10n.t('Set API Key'), command: 'worldline.setApiKey' },
  selectModel: { label: l10n.t('Select Model'), command: 'worldline.selectModel' },
  chooseProvider: { label: l10n.t('Choose Provider…'), command: 'worldline.chooseProvider' },
};

/** Test Connection: the report, also shown in words (and logged, without the key); undefined when no model is chosen. */
export async function runConnectionTest(p: ConnectionFlowPorts, raw?: unknown): Promise<ConnectionReport | undefined> {
  const a = commandArgs<TestConnectionArgs>(raw);
  const settings = p.settings.read();
  const model = typeof a.model === 'string' && a.model.trim() ? a.model.trim() : settings.model;
  if (!model) {
    offerCommand(p, 'warning', l10n.t('No model is chosen yet, so there is nothing to test.'), ACTIONS.chooseProvider.label, ACTIONS.chooseProvider.command, [], 'the model question');
    return undefined;
  }
  const key = (await p.keys.forRequests(settings)).main;
  const opts = requestOptions(settings, settings.baseUrl, 'stream');
  const run = (signal?: AbortSignal): Promise<ConnectionReport> => testConnection({
    baseUrl: settings.baseUrl,
    apiKey: key,
    model,
    dialect: dialectForEndpoint(settings.baseUrl, settings),
    thinking: settings.thinking ?? 'auto',
    providerPin: settings.providerPin ?? [],
    timeoutMs: opts.timeoutMs,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(signal ? { signal } : {}),
  });
  const report = a.quiet ? await run() : await p.progress(l10n.t('Worldline: testing {0}…', model), run);
  p.log.info(`connection test: ${report.host} ${report.model} answered=${report.answered} tools=${report.tools ?? '-'} thinking=${report.thinking ?? '-'} context=${report.contextWindow?.tokens ?? '-'}${report.error ? ` error=${report.error.kind} ${report.error.message}` : ''}`);
  if (!a.quiet) showReport(p, connectionWords(report));
  return report;
}

/** The report as one notification, its sentences joined, with the way out as its button. */
function showReport(p: Asking, words: ConnectionWords): void {
  const text = literal(words.lines.map(p.say).join(' '));
  const action = words.action ? ACTIONS[words.action] : undefined;
  if (action) offerCommand(p, words.level, text, action.label, action.command, [], 'the connection report');
  else tell(p, words.level, text);
}
