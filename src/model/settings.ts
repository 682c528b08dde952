// The `worldline.*` settings as one typed snapshot (the shell reads VS Code's configuration into
// it; the core decides with it). Types only, and the clamps a snapshot must respect.
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
}
