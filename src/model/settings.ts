// The `worldline.*` settings as one typed snapshot (the shell reads VS Code's configuration into
// it; the core decides with it). Types only, and the clamps a snapshot must respect.
import type { ProviderSetting, ThinkingMode } from './dialects';
import type { Endpoints } from './keys';

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
  /** "Prose follows the branch": always, never, or ask. */
  proseFollowsBranch: 'ask' | 'always' | 'never';
  /**
   * `worldline.provider`: which dialect the main endpoint speaks (src/model/dialects.ts); `auto`
   * (the default, also when absent) recognises it from the base URL. It applies to the scribe's
   * endpoint only when that is the same origin.
   */
  provider?: ProviderSetting;
  /** `worldline.thinking` for the writing model; the scribe and summaries always send 'off'. Default 'auto'. */
  thinking?: ThinkingMode;
  /** `worldline.openrouter.providers`: OpenRouter providers to pin, in order (empty: OpenRouter chooses). */
  providerPin?: string[];
  /**
   * `worldline.contextWindow`: the writing model's context window in tokens; 0 or absent = what
   * the dialect table says for the model (src/model/usage.ts `contextWindowFor`).
   */
  contextWindow?: number;
  /** `worldline.requestTimeoutSeconds`: the writing model's stream (connect, and silence between chunks). Default 60. */
  requestTimeoutSeconds?: number;
  /** `worldline.sideRequestTimeoutSeconds`: a whole non-streamed side call (scribe, summaries, embeddings). Default 180. */
  sideRequestTimeoutSeconds?: number;
  /** `worldline.maxOutputTokens`: the writing model's cap per reply; absent = the provider's default (nothing sent). */
  maxOutputTokens?: number;
  /**
   * `worldline.customHeaders` as it may be sent (src/model/requestOptions.ts `customHeaders`: no
   * credentials, no framing headers); sent only to the main endpoint's origin.
   */
  customHeaders?: Record<string, string>;
  /** `worldline.codex.agentMayWrite`: the agent's write tools may change codex files. Default (and absent) false. */
  codexAgentMayWrite?: boolean;
  /** `worldline.continuity.check`: the continuity check after every turn, or off. Default (and absent) 'everyTurn'. */
  continuityCheck?: 'everyTurn' | 'off';
}
