// The `worldline.*` settings as one typed snapshot, and the API keys in SecretStorage. Everything
// that reads a setting the agent or memory needs, or a key, reads it here; which key goes where is
// the core's rule (src/model/keys.ts). Keys are never logged: only origins are.
import * as vscode from 'vscode';
import {
  bindKey, decodeStoredKey, encodeStoredKey, requestKeys, scribeHasOwnEndpoint,
  type BoundKey, type Endpoints, type KeyRole, type RequestKeys, type StoredKeys,
} from '../model/keys';

export const SECRET_KEY = 'worldline.apiKey';
/** The scribe's (and summariser's) own key, for a scribe on another endpoint. */
export const SCRIBE_SECRET_KEY = 'worldline.scribeApiKey';
const SECRET_OF: Record<KeyRole, string> = { main: SECRET_KEY, scribe: SCRIBE_SECRET_KEY };

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export interface AgentSettings {
  baseUrl: string;
  model: string;
  scribeBaseUrl: string;
  scribeModel: string;
  maxToolSteps: number;
  temperature: number;
}

export interface MemorySettings {
  everyTurns: number;
  keepTurns: number;
  recallCount: number;
  embeddingModel: string;
  embeddingBaseUrl: string;
}

export interface WorldlineSettings extends AgentSettings {
  memory: MemorySettings;
  /** Where each kind of request goes, defaults resolved. */
  endpoints: Endpoints;
}

export function readSettings(): WorldlineSettings {
  const c = vscode.workspace.getConfiguration('worldline');
  const baseUrl = c.get<string>('baseUrl', DEFAULT_BASE_URL).trim() || DEFAULT_BASE_URL;
  const model = c.get<string>('model', '').trim();
  const scribeBaseUrl = c.get<string>('scribe.baseUrl', '').trim() || baseUrl;
  const memory = readMemorySettings();
  return {
    baseUrl,
    model,
    scribeBaseUrl,
    scribeModel: c.get<string>('scribe.model', '').trim() || model,
    maxToolSteps: Math.max(1, Math.min(100, c.get<number>('maxToolSteps', 12))),
    temperature: Math.max(0, Math.min(2, c.get<number>('temperature', 0.8))),
    memory,
    endpoints: { main: baseUrl, scribe: scribeBaseUrl, embeddings: memory.embeddingBaseUrl || baseUrl },
  };
}

export function readMemorySettings(): MemorySettings {
  const c = vscode.workspace.getConfiguration('worldline.memory');
  return {
    everyTurns: Math.max(1, c.get<number>('summaryEveryTurns', 30)),
    keepTurns: Math.max(1, c.get<number>('keepRecentTurns', 6)),
    recallCount: Math.max(0, Math.min(20, c.get<number>('recallCount', 6))),
    embeddingModel: c.get<string>('embeddingModel', '').trim(),
    embeddingBaseUrl: c.get<string>('embeddingBaseUrl', '').trim(),
  };
}

/** The API keys in SecretStorage, each bound to the endpoint it was set for. */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  /** The stored keys; a key stored before keys were bound is bound now to where it was being sent. */
  async stored(settings: WorldlineSettings = readSettings()): Promise<StoredKeys> {
    const out: StoredKeys = {};
    const legacyEndpoint: Record<KeyRole, string | undefined> = {
      main: settings.endpoints.main,
      // The scribe key used to be used only on an endpoint of its own.
      scribe: scribeHasOwnEndpoint(settings.endpoints) ? settings.endpoints.scribe : undefined,
    };
    for (const role of ['main', 'scribe'] as const) {
      const read = decodeStoredKey(await this.secrets.get(SECRET_OF[role]), legacyEndpoint[role]);
      if (read.bound) {
        out[role] = read.bound;
        if (read.legacy) await this.secrets.store(SECRET_OF[role], encodeStoredKey(read.bound));
      }
    }
    return out;
  }

  /** The key each request carries under the current settings. */
  async forRequests(settings: WorldlineSettings = readSettings()): Promise<RequestKeys> {
    return requestKeys(settings.endpoints, await this.stored(settings));
  }

  /** Sets (or, with an empty key, deletes) a key, bound to the role's current endpoint. */
  async set(role: KeyRole, key: string, settings: WorldlineSettings = readSettings()): Promise<{ ok: true; bound?: BoundKey } | { ok: false; endpoint: string }> {
    if (key.trim() === '') {
      await this.secrets.delete(SECRET_OF[role]);
      return { ok: true };
    }
    const endpoint = role === 'scribe' ? settings.endpoints.scribe : settings.endpoints.main;
    const bound = bindKey(key, endpoint);
    if (!bound) return { ok: false, endpoint };
    await this.secrets.store(SECRET_OF[role], encodeStoredKey(bound));
    return { ok: true, bound };
  }
}
