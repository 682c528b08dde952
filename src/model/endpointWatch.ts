// What follows a change of the endpoint settings: the novelist is asked for the key of a host that
// has none (once per host in this window; ./keyPrompt.ts decides which), and told once about each
// custom header that is not sent (./requestOptions.ts says which and why). Header names are shown,
// values never: a header may carry a secret.
import type { Text } from '../common/text';
import { dialectForEndpoint } from './dialects';
import { offerCommand, tell, type Asking, type SettingsPort } from './flowPorts';
import { keysToAsk, type KeyAsk } from './keyPrompt';
import type { KeyStore } from './keyStore';
import { customHeaders, type HeaderRefusal } from './requestOptions';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** Settings whose change can leave an endpoint without its key. */
export const ENDPOINT_SETTINGS: readonly string[] = ['worldline.baseUrl', 'worldline.provider', 'worldline.scribe.baseUrl', 'worldline.memory.embeddingBaseUrl', 'worldline.memory.embeddingModel'];

export interface EndpointWatchPorts extends Asking {
  settings: Pick<SettingsPort, 'read' | 'raw'>;
  keys: KeyStore;
}

export function refusalWords(why: HeaderRefusal): Text {
  switch (why) {
    case 'credentials': return l10n.t('keys and credentials are set with Worldline: Set API Key, which keeps them in secret storage.');
    case 'framing': return l10n.t('the HTTP client sets this header itself.');
    case 'badName': return l10n.t('it is not a valid header name.');
    case 'badValue': return l10n.t('its value must be non-empty text on one line.');
  }
}

/** The question for a host without a key; `oldKey`: a main key exists, set for another host. */
export function keyQuestionWords(ask: KeyAsk, oldKey: boolean): Text {
  if (ask.role === 'scribe') return l10n.t('The scribe now goes to {0}, and no API key is set for it.', ask.origin);
  if (ask.role === 'embeddings') return l10n.t('The embeddings model now goes to {0}, and no API key is set for it.', ask.origin);
  return oldKey
    ? l10n.t('The writing model now goes to {0}, and no API key is set for it. Keys stay with the host they were set for, so the old key is not sent there.', ask.origin)
    : l10n.t('The writing model now goes to {0}, and no API key is set for it.', ask.origin);
}

export class EndpointWatch {
  private readonly asked = new Set<string>();
  private readonly warnedHeaders = new Set<string>();
  /** The last check, for tests and for callers that must wait for the question to be up. */
  private pending: Promise<KeyAsk[]> = Promise.resolve([]);

  constructor(private readonly p: EndpointWatchPorts) {}

  /** Settings changed; `affects` says whether a given setting is among them. */
  changed(affects: (setting: string) => boolean): void {
    // One check at a time: two quick changes (provider, then base URL) ask once, not twice.
    if (ENDPOINT_SETTINGS.some(affects)) this.pending = this.pending.then(() => this.askForKeys());
    if (affects('worldline.customHeaders')) this.warnRefusedHeaders();
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
      const settings = this.p.settings.read();
      const stored = await this.p.keys.stored(settings);
      const asks = keysToAsk({
        endpoints: settings.endpoints,
        embeddingsInUse: settings.memory.embeddingModel !== '',
        stored,
        needsKey: (endpoint) => dialectForEndpoint(endpoint, settings).needsKey,
        asked: this.asked,
      });
      for (const ask of asks) {
        this.asked.add(ask.origin);
        this.p.log.info(`api key: none set for ${ask.origin} (${ask.role}); asking`);
        offerCommand(this.p, 'info', keyQuestionWords(ask, stored.main !== undefined), l10n.t('Set API Key'), 'worldline.setApiKey', [undefined, ask.role], 'the key question');
      }
      return asks;
    } catch (err) {
      this.p.log.warn(`checking the endpoint keys failed: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }
  }

  /** Each refused custom header once per window (by name and reason), in the log and as a warning. */
  warnRefusedHeaders(): void {
    const { refused } = customHeaders(this.p.settings.raw('customHeaders'));
    for (const r of refused) {
      const id = `${r.name} ${r.why}`;
      if (this.warnedHeaders.has(id)) continue;
      this.warnedHeaders.add(id);
      this.p.log.warn(`worldline.customHeaders: ${r.name} is not sent (${r.why})`);
      tell(this.p, 'warning', l10n.t('worldline.customHeaders: "{0}" is not sent: {1}', r.name, this.p.say(refusalWords(r.why))));
    }
  }
}
