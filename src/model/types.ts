// Shapes shared by every caller of an OpenAI-compatible chat endpoint (scribe now, agent later).
// Plain TS: no `vscode`, no `openai` types leak out, so callers and fakes stay small.

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
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

export interface ChatClientOptions {
  baseURL: string;
  /** May be empty for local servers that need no key. Never logged or put in error messages. */
  apiKey: string;
  model: string;
  /** Per request, default 60 000 ms. */
  timeoutMs?: number;
  /** Retries on network errors, 408/409/429/5xx (the `openai` package's policy). Default 2. */
  maxRetries?: number;
  /**
   * Which field carries the output cap. Most compatible servers (DeepSeek, OpenRouter, local)
   * take `max_tokens`; OpenAI's reasoning models want `max_completion_tokens`.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}
