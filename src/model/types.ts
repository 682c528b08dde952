// Shapes shared by every caller of an OpenAI-compatible chat endpoint (scribe now, agent later).
// Plain TS: no `vscode`, no `openai` types leak out, so callers and fakes stay small.
import type { Dialect, DialectOptions, MaxTokensField, ThinkingMode } from './dialects';
import type { EndpointMemory } from './rejected';

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedTokens?: number;
  reasoningTokens?: number;
}

export interface CompleteRequest {
  /** Prepended as the first `system` message when given. */
  system?: string;
  messages: ChatMessage[];
  /** Overrides the client's default model for this call (e.g. the scribe's own model). */
  model?: string;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

export interface CompleteResult {
  /** The assistant's visible text. Reasoning fields (`reasoning_content`) are never included. */
  text: string;
  usage?: ChatUsage;
  /** As reported by the server: stop / length / tool_calls / content_filter … */
  finishReason?: string;
  model?: string;
}

/** The one capability the scribe needs; the agent's streaming call will be a sibling method. */
export interface ChatCompleter {
  complete(req: CompleteRequest): Promise<CompleteResult>;
}

/** How a client speaks to its endpoint: the dialect's rules and the novelist's extras (both clients). */
export interface EndpointOptions {
  /**
   * Which field carries the output cap (overrides the dialect's, for a client set up for one
   * model). Most compatible servers take `max_tokens`; OpenAI's reasoning models want
   * `max_completion_tokens`.
   */
  maxTokensField?: MaxTokensField;
  /** The endpoint's rules (dialects.ts); default: recognised from the base URL. */
  dialect?: Dialect;
  /**
   * The thinking switch; default 'auto' (the provider's default, nothing sent). The scribe and
   * summaries pass 'off' (their budget is for the JSON or the summary, not a chain of thought);
   * where the model reasons anyway the cap is raised for it.
   */
  thinking?: ThinkingMode;
  dialectOptions?: DialectOptions;
  /** Where refused parameters are remembered; default the window's shared memory. */
  endpointMemory?: EndpointMemory;
  /** Extra headers (the novelist's custom headers, src/model/requestOptions.ts); they win over the dialect's. */
  headers?: Record<string, string>;
}

export interface ChatClientOptions extends EndpointOptions {
  baseURL: string;
  /** May be empty for local servers that need no key. Never logged or put in error messages. */
  apiKey: string;
  model: string;
  /** Per request, default 60 000 ms. */
  timeoutMs?: number;
  /** Retries on network errors, 408/409/429/5xx (the `openai` package's policy). Default 2. */
  maxRetries?: number;
}
