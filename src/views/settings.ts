// The `worldline.*` settings as one typed snapshot, and the API keys in SecretStorage. Everything
// that reads a setting the agent or memory needs, or a key, reads it here; which key goes where is
// the core's rule (src/model/keys.ts, src/model/keyStore.ts). Keys are never logged: only origins are.
import * as vscode from 'vscode';
import { isProviderSetting } from '../model/dialects';
import { KeyStore } from '../model/keyStore';
import { customHeaders, DEFAULT_REQUEST_TIMEOUT_S, DEFAULT_SIDE_REQUEST_TIMEOUT_S, maxOutputTokens, timeoutSeconds } from '../model/requestOptions';
import { DEFAULT_BASE_URL, type MemorySettings, type WorldlineSettings } from '../model/settings';

export type { AgentSettings, MemorySettings, WorldlineSettings } from '../model/settings';
export { DEFAULT_BASE_URL };

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
    proseFollowsBranch: followSetting(c.get<string>('proseFollowsBranch', 'ask')),
    provider: ((v) => (isProviderSetting(v) ? v : 'auto'))(c.get<unknown>('provider', 'auto')),
    thinking: ((v) => (v === 'off' || v === 'on' ? v : 'auto'))(c.get<unknown>('thinking', 'auto')),
    providerPin: stringList(c.get<unknown>('openrouter.providers', [])),
    contextWindow: ((v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0))(c.get<unknown>('contextWindow', 0)),
    requestTimeoutSeconds: timeoutSeconds(c.get<unknown>('requestTimeoutSeconds'), DEFAULT_REQUEST_TIMEOUT_S),
    sideRequestTimeoutSeconds: timeoutSeconds(c.get<unknown>('sideRequestTimeoutSeconds'), DEFAULT_SIDE_REQUEST_TIMEOUT_S),
    maxOutputTokens: maxOutputTokens(c.get<unknown>('maxOutputTokens')),
    customHeaders: customHeaders(c.get<unknown>('customHeaders')).headers,
    codexAgentMayWrite: c.get<unknown>('codex.agentMayWrite', false) === true,
    continuityCheck: c.get<unknown>('continuity.check', 'everyTurn') === 'off' ? 'off' : 'everyTurn',
  };
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string' && p.trim() !== '').map((p) => p.trim()) : [];
}

function followSetting(v: string | undefined): WorldlineSettings['proseFollowsBranch'] {
  return v === 'always' || v === 'never' ? v : 'ask';
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

/** The API keys in SecretStorage (`new ApiKeys(context.secrets)`), bound as src/model/keyStore.ts says. */
export class ApiKeys extends KeyStore {}
