// Reactions to endpoint settings changing: the novelist is asked for the key of a host that has
// none (once per host in this window; src/model/keyPrompt.ts decides which), and told once about
// custom headers that are not sent (src/model/requestOptions.ts says which and why). Names are
// shown, values never: a header may carry a secret.
import * as vscode from 'vscode';
import { dialectForEndpoint } from '../model/dialects';
import { keysToAsk, type KeyAsk } from '../model/keyPrompt';
import { customHeaders, type HeaderRefusal } from '../model/requestOptions';
import type { Log } from './log';
import { readSettings, type ApiKeys } from './settings';

/** Settings whose change can leave an endpoint without its key. */
const ENDPOINT_SETTINGS = ['worldline.baseUrl', 'worldline.provider', 'worldline.scribe.baseUrl', 'worldline.memory.embeddingBaseUrl', 'worldline.memory.embeddingModel'];

export class SettingsWatch implements vscode.Disposable {
  private readonly asked = new Set<string>();
  private readonly warnedHeaders = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The last check, for tests and for callers that must wait for the question to be up. */
  private pending: Promise<KeyAsk[]> = Promise.resolve([]);

  constructor(private readonly keys: ApiKeys, private readonly log: Log) {
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => {
      // One check at a time: two quick changes (provider, then base URL) ask once, not twice.
      if (ENDPOINT_SETTINGS.some((s) => e.affectsConfiguration(s))) this.pending = this.pending.then(() => this.askForKeys());
      if (e.affectsConfiguration('worldline.customHeaders')) this.warnRefusedHeaders();
    }));
    this.warnRefusedHeaders();
  }

  /** An origin that is being asked for elsewhere (Choose Provider asks itself): not asked again here. */
  markAsked(origin: string): void {
    this.asked.add(origin);
  }

  /** Resolves with the questions the last settings change raised. */
  settled(): Promise<KeyAsk[]> {
    return this.pending;
  }

  private async askForKeys(): Promise<KeyAsk[]> {
    try {
      const settings = readSettings();
      const stored = await this.keys.stored(settings);
      const asks = keysToAsk({
        endpoints: settings.endpoints,
        embeddingsInUse: settings.memory.embeddingModel !== '',
        stored,
        needsKey: (endpoint) => dialectForEndpoint(endpoint, settings).needsKey,
        asked: this.asked,
      });
      for (const ask of asks) {
        this.asked.add(ask.origin);
        this.log.info(`api key: none set for ${ask.origin} (${ask.role}); asking`);
        const set = vscode.l10n.t('Set API Key');
        const text = ask.role === 'main'
          ? stored.main
            ? vscode.l10n.t('The writing model now goes to {0}, and no API key is set for it. Keys stay with the host they were set for, so the old key is not sent there.', ask.origin)
            : vscode.l10n.t('The writing model now goes to {0}, and no API key is set for it.', ask.origin)
          : ask.role === 'scribe'
            ? vscode.l10n.t('The scribe now goes to {0}, and no API key is set for it.', ask.origin)
            : vscode.l10n.t('The embeddings model now goes to {0}, and no API key is set for it.', ask.origin);
        void Promise.resolve(vscode.window.showInformationMessage(text, set))
          .then((pick) => (pick === set ? vscode.commands.executeCommand('worldline.setApiKey', undefined, ask.role) : undefined))
          .then(undefined, (err: unknown) => this.log.warn(`the key question failed: ${err instanceof Error ? err.message : String(err)}`));
      }
      return asks;
    } catch (err) {
      this.log.warn(`checking the endpoint keys failed: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }
  }

  private warnRefusedHeaders(): void {
    const { refused } = customHeaders(vscode.workspace.getConfiguration('worldline').get<unknown>('customHeaders'));
    for (const r of refused) {
      const id = `${r.name} ${r.why}`;
      if (this.warnedHeaders.has(id)) continue;
      this.warnedHeaders.add(id);
      this.log.warn(`worldline.customHeaders: ${r.name} is not sent (${r.why})`);
      void vscode.window.showWarningMessage(vscode.l10n.t('worldline.customHeaders: "{0}" is not sent: {1}', r.name, refusalWords(r.why)));
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

function refusalWords(why: HeaderRefusal): string {
  switch (why) {
    case 'credentials': return vscode.l10n.t('keys and credentials are set with Worldline: Set API Key, which keeps them in secret storage.');
    case 'framing': return vscode.l10n.t('the HTTP client sets this header itself.');
    case 'badName': return vscode.l10n.t('it is not a valid header name.');
    case 'badValue': return vscode.l10n.t('its value must be non-empty text on one line.');
  }
}
