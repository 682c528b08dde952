// The provider dialects, as one table (DESIGN, "Providers"). A dialect says how an OpenAI-compatible
// endpoint is recognised, how its thinking is switched, which parameters a model takes, which
// fields the provider sends with a reply that must go back to it in later requests, its headers,
// and what the docs say of context windows. Each row cites the documented rule it follows; where
// the docs could not be found, the row says so and does the plain OpenAI thing.
//
// Rules are data plus small pure functions of the model name: the clients (streaming.ts,
// chatClient.ts) apply them, `replayFields` turns stored provider fields back into wire fields.
import type { ContextMessage, ProviderFields, ToolCall } from '../session/entries';
import { sameEndpoint } from './keys';

export type DialectId =
  | 'deepseek'
  | 'openai'
  | 'gemini'
  | 'openrouter'
  | 'qwen'
  | 'kimi'
  | 'glm'
  | 'siliconflow'
  | 'ollama'
  | 'lmstudio'
  | 'vllm'
  | 'llamacpp'
  | 'openai-compatible';

export const DIALECT_IDS: readonly DialectId[] = [
  'deepseek', 'openai', 'gemini', 'openrouter', 'qwen', 'kimi', 'glm', 'siliconflow', 'ollama', 'lmstudio', 'vllm', 'llamacpp', 'openai-compatible',
];

/** `worldline.provider`: a dialect by name, or `auto` (recognised from the base URL). */
export type ProviderSetting = 'auto' | DialectId;

/** `off`: send the provider's thinking-off switch; `on`: its thinking-on switch; `auto`: send neither. */
export type ThinkingMode = 'off' | 'auto' | 'on';

export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** What one model of a dialect takes. */
export interface ModelRules {
  maxTokensField: MaxTokensField;
  /** False where the model rejects (or is documented to fix) the sampling temperature: it is not sent. */
  temperature: boolean;
  /** Body fields of the thinking switch for a mode; `{}` leaves the provider's default. */
  thinking(mode: ThinkingMode): Record<string, unknown>;
  /** The model reasons when nothing is sent (the provider's default). */
  thinksByDefault: boolean;
  /** The model reasons even with thinking 'off' (it cannot be switched off): budget for it. */
  reasonsWhenOff: boolean;
  /** Tokens of context, where the provider's docs give it for this model family. */
  contextWindow?: number;
  /** What a million tokens cost, where the provider's price list gives it for this exact model. */
  price?: ModelPrice;
}

/** Prices per million tokens, in the provider's billing currency. */
export interface ModelPrice {
  currency: 'USD' | 'CNY';
  /** Prompt tokens not served from the provider's cache. */
  input: number;
  /** Prompt tokens served from the cache (the price list's "cached input" / "cache hit"). */
  cachedInput: number;
  /** Completion tokens, reasoning included. */
  output: number;
}

/** Which stored provider fields go back, and where. */
export interface ReplayRule {
  /** Message-level fields replayed on assistant messages that carry tool calls, when stored. */
  message: readonly string[];
  /** Fields that must be on every such message even when nothing was stored (sent as ''). */
  required: readonly string[];
  /** Tool-call-level fields replayed on each call, when stored. */
  toolCall: readonly string[];
}

export interface DialectOptions {
  /** OpenRouter: providers to route to, in order, without fallbacks (empty: OpenRouter chooses). */
  providerPin?: readonly string[];
}

export interface Dialect {
  id: DialectId;
  label: string;
  /** Where the rules come from. */
  docs: readonly string[];
  /** The base URL the provider documents, for Choose Provider. */
  defaultBaseUrl?: string;
  /** Recognised from a parsed base URL (only consulted for `worldline.provider: auto`). */
  recognise(url: URL): boolean;
  /** False for local servers: no key is asked for. */
  needsKey: boolean;
  local: boolean;
  /** Whether tool calling is documented for the endpoint, or has to be tried (Test Connection). */
  tools: 'documented' | 'unknown';
  /** A warning the shell shows when this dialect is chosen (Ollama's 4k default context). */
  warning?: 'ollamaDefaultContext';
  model(model: string): ModelRules;
  replay: ReplayRule;
  headers(opts: DialectOptions): Record<string, string>;
  /** Fixed body fields beyond the thinking switch (OpenRouter's provider pin). */
  extraBody(opts: DialectOptions): Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Helpers for the rows.

function hostIs(url: URL, ...names: string[]): boolean {
  const host = url.hostname.toLowerCase();
  return names.some((n) => host === n || host.endsWith(`.${n}`));
}

/** Loopback, private-range and .local hosts: only there does a bare port say which server it is. */
export function isLocalHost(url: URL): boolean {
  const h = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h === '::1' || h === '0.0.0.0') return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (!v4) return /^f[cd][0-9a-f]{2}:/.test(h); // IPv6 unique local
  const [a, b] = [Number(v4[1]), Number(v4[2])];
  return a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31);
}

function localPort(url: URL, port: string): boolean {
  return isLocalHost(url) && url.port === port;
}

/** The model id without a router's vendor prefix ("openai/gpt-5" → "gpt-5"), lower-cased. */
function bare(model: string): string {
  const m = model.trim().toLowerCase();
  const slash = m.lastIndexOf('/');
  return slash >= 0 ? m.slice(slash + 1) : m;
}

const NONE: Record<string, unknown> = {};

function plainRules(over: Partial<ModelRules> = {}): ModelRules {
  return { maxTokensField: 'max_tokens', temperature: true, thinking: () => NONE, thinksByDefault: false, reasonsWhenOff: false, ...over };
}

/** `thinking: {type: enabled|disabled}`, the switch DeepSeek, Kimi and GLM share. */
function typeSwitch(mode: ThinkingMode): Record<string, unknown> {
  if (mode === 'off') return { thinking: { type: 'disabled' } };
  if (mode === 'on') return { thinking: { type: 'enabled' } };
  return NONE;
}

function enableThinking(mode: ThinkingMode): Record<string, unknown> {
  return mode === 'auto' ? NONE : { enable_thinking: mode === 'on' };
}

/** Names of models that only ever reason, whatever is sent. */
const ALWAYS_THINKS = /(^|[-_.])(r1|qwq|reasoner|thinking)([-_.]|$)|^glm-z1/;

/** Fields the reasoning-capable providers send and want back, replayed only where a row says so. */
const NO_REPLAY: ReplayRule = { message: [], required: [], toolCall: [] };

/**
 * Unknown and local servers get back exactly what they themselves sent on a tool-call message
 * (`reasoning_content` from a vLLM/llama.cpp reasoning parser, `reasoning` from Ollama): chat
 * templates of reasoning models (Qwen3, DeepSeek) render it inside the tool loop, and a server
 * that did not send a field never gets it. A 400 that names such a field stops it (rejected.ts).
 */
const ECHO_REPLAY: ReplayRule = { message: ['reasoning_content', 'reasoning'], required: [], toolCall: ['extra_content'] };

const noHeaders = (): Record<string, string> => ({});
const noBody = (): Record<string, unknown> => ({});

/** Worldline as OpenRouter's attribution names it (its marketplace identity: publisher.name). */
export const APP_REFERER = 'https://marketplace.visualstudio.com/items?itemName=worldline.worldline';
export const APP_TITLE = 'Worldline';

// ---------------------------------------------------------------------------------------------
// The table.

const DEEPSEEK: Dialect = {
  id: 'deepseek',
  label: 'DeepSeek',
  // Thinking switch `{"thinking": {"type": "enabled/disabled"}}`, on by default; effort via
  // `reasoning_effort`; thinking mode ignores temperature/top_p without an error; reasoning comes in
  // `reasoning_content` beside `content`. Between two user messages, if the model called tools, the
  // assistant's `reasoning_content` "must be passed back to the API in all subsequent requests"
  // (400 otherwise); without tool calls it is not needed and is ignored if sent.
  //   https://api-docs.deepseek.com/guides/thinking_mode
  // 402 "Insufficient Balance": https://api-docs.deepseek.com/quick_start/error_codes
  // Cache hits in usage.prompt_cache_hit_tokens: https://api-docs.deepseek.com/guides/kv_cache
  // Context window: not pinned — the pricing page's figure changed across model versions
  // (64K, 128K, 1M for V4); the preset or a setting gives it.
  // Prices: not pinned either. https://api-docs.deepseek.com/quick_start/pricing changes them
  // under the same model names (V3, V3.1, V3.2, V4), and from 16 August 2026 bills peak and
  // off-peak hours at different rates, so no fixed figure would be right: no cost is shown.
  docs: ['https://api-docs.deepseek.com/guides/thinking_mode', 'https://api-docs.deepseek.com/quick_start/error_codes', 'https://api-docs.deepseek.com/guides/kv_cache'],
  defaultBaseUrl: 'https://api.deepseek.com',
  recognise: (u) => hostIs(u, 'api.deepseek.com', 'deepseek.com'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    // `deepseek-reasoner` is thinking mode by model name (same guide): the switch is not sent.
    const reasoner = bare(model) === 'deepseek-reasoner';
    return plainRules({ thinking: reasoner ? () => NONE : typeSwitch, thinksByDefault: true, reasonsWhenOff: reasoner });
  },
  replay: { message: ['reasoning_content'], required: ['reasoning_content'], toolCall: [] },
  headers: noHeaders,
  extraBody: noBody,
};

/** OpenAI's reasoning models: o1/o3/o4 and gpt-5 (not the gpt-5*-chat models). */
export function isOpenAIReasoningModel(model: string): boolean {
  const m = bare(model);
  return /^o[134](-|$)/.test(m) || (/^gpt-5/.test(m) && !/^gpt-5(\.\d+)?-chat/.test(m));
}

function usd(input: number, cachedInput: number, output: number): ModelPrice {
  return { currency: 'USD', input, cachedInput, output };
}

/** OpenAI's price list (see the row's comment), by exact model name. */
const OPENAI_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-5': usd(1.25, 0.125, 10),
  'gpt-5.1': usd(1.25, 0.125, 10),
  'gpt-5-mini': usd(0.25, 0.025, 2),
  'gpt-5-nano': usd(0.05, 0.005, 0.4),
  'gpt-4.1': usd(2, 0.5, 8),
  'gpt-4.1-mini': usd(0.4, 0.1, 1.6),
  'gpt-4.1-nano': usd(0.1, 0.025, 0.4),
  'gpt-4o': usd(2.5, 1.25, 10),
  'gpt-4o-mini': usd(0.15, 0.075, 0.6),
  'o3': usd(2, 0.5, 8),
  'o4-mini': usd(1.1, 0.275, 4.4),
};

const OPENAI: Dialect = {
  id: 'openai',
  label: 'OpenAI',
  // `max_tokens` is deprecated in favour of `max_completion_tokens` and "not compatible with o1
  // series models" (API reference, Chat, create); reasoning models (o-series, gpt-5) reject a
  // non-default temperature ("Only the default (1) value is supported", 400 unsupported_value).
  // `reasoning_effort`: gpt-5.1+ take `none` (no reasoning); models before gpt-5.1 do not take
  // `none` (gpt-5: `minimal`, o-series: `low` at least); gpt-5-pro only `high`.
  //   https://platform.openai.com/docs/api-reference/chat/create
  //   https://platform.openai.com/docs/guides/reasoning
  // Context windows from the model pages: https://platform.openai.com/docs/models
  // Prices (USD per 1M tokens, standard tier: input / cached input / output) from
  // https://platform.openai.com/docs/pricing, for the exact model names listed there; a dated
  // snapshot or another model gets none (gpt-4o-2024-05-13 is priced differently from gpt-4o).
  // OpenAI sends no reasoning text on chat completions, so nothing is replayed.
  docs: ['https://platform.openai.com/docs/api-reference/chat/create', 'https://platform.openai.com/docs/guides/reasoning', 'https://platform.openai.com/docs/models'],
  defaultBaseUrl: 'https://api.openai.com/v1',
  recognise: (u) => hostIs(u, 'api.openai.com'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    const m = bare(model);
    const contextWindow = /^gpt-5(\.[12])?(-|$)/.test(m) ? 400_000
      : /^gpt-4\.1/.test(m) ? 1_047_576
      : /^gpt-4o/.test(m) ? 128_000
      : /^o[134](-|$)/.test(m) ? 200_000
      : undefined;
    const price = OPENAI_PRICES[m];
    const base: Partial<ModelRules> = {
      maxTokensField: 'max_completion_tokens',
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(price ? { price } : {}),
    };
    if (!isOpenAIReasoningModel(m)) return plainRules(base);
    const newer = /^gpt-5\.\d/.test(m); // gpt-5.1 and later: `none` turns reasoning off
    const pro = /^gpt-5(\.\d+)?-pro/.test(m);
    const off = pro ? undefined : newer ? 'none' : /^gpt-5/.test(m) ? 'minimal' : 'low';
    return plainRules({
      ...base,
      temperature: false,
      thinking: (mode) => (mode === 'off' ? (off ? { reasoning_effort: off } : NONE) : mode === 'on' ? { reasoning_effort: pro ? 'high' : 'medium' } : NONE),
      thinksByDefault: !newer,
      reasonsWhenOff: off !== 'none',
    });
  },
  replay: NO_REPLAY,
  headers: noHeaders,
  extraBody: noBody,
};

const GEMINI: Dialect = {
  id: 'gemini',
  label: 'Gemini',
  // OpenAI-compatible endpoint; `reasoning_effort` maps to Gemini's thinking (`none` turns it off
  // where the model allows: 2.5 Flash/Flash-Lite; 2.5 Pro and Gemini 3 cannot turn thinking off).
  //   https://ai.google.dev/gemini-api/docs/openai , https://ai.google.dev/gemini-api/docs/thinking
  // Thought signatures: "you must pass back thought signatures during function calling, otherwise
  // you will get a validation error (4xx)" for Gemini 3 (minimal thinking included); on the
  // OpenAI-compatible endpoint they ride in each tool call's `extra_content.google.thought_signature`.
  //   https://ai.google.dev/gemini-api/docs/thought-signatures
  // Context window 1,048,576 for 2.5 and 3: https://ai.google.dev/gemini-api/docs/models
  // Prices: not pinned — https://ai.google.dev/gemini-api/docs/pricing prices 2.5 Pro and 3 Pro
  // by prompt length (above 200K tokens costs more) and has a free tier: no cost is shown.
  docs: ['https://ai.google.dev/gemini-api/docs/openai', 'https://ai.google.dev/gemini-api/docs/thinking', 'https://ai.google.dev/gemini-api/docs/thought-signatures'],
  defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/',
  recognise: (u) => hostIs(u, 'generativelanguage.googleapis.com'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    const m = bare(model);
    const thinker = /^gemini-(2\.5|[3-9])/.test(m);
    const canOff = /^gemini-2\.5-flash/.test(m);
    return plainRules({
      thinking: (mode) => (!thinker || mode !== 'off' ? NONE : { reasoning_effort: canOff ? 'none' : 'low' }),
      thinksByDefault: thinker,
      reasonsWhenOff: thinker && !canOff,
      ...(thinker ? { contextWindow: 1_048_576 } : {}),
    });
  },
  replay: { message: ['extra_content'], required: [], toolCall: ['extra_content'] },
  headers: noHeaders,
  extraBody: noBody,
};

const OPENROUTER: Dialect = {
  id: 'openrouter',
  label: 'OpenRouter',
  // Attribution headers `HTTP-Referer` and `X-Title`: https://openrouter.ai/docs/app-attribution
  // Provider pin `provider: {order, allow_fallbacks: false}`: https://openrouter.ai/docs/features/provider-routing
  // One `reasoning` field (`effort` none…xhigh, `max_tokens`, `exclude`, `enabled`); reasoning comes
  // back in `reasoning` / `reasoning_details`, and for tool calling the `reasoning_details` must be
  // passed back unmodified ("Preserving reasoning blocks"):
  //   https://openrouter.ai/docs/use-cases/reasoning-tokens
  // Parameters a model does not support are ignored by OpenRouter, so max_tokens/temperature stay.
  docs: ['https://openrouter.ai/docs/use-cases/reasoning-tokens', 'https://openrouter.ai/docs/features/provider-routing', 'https://openrouter.ai/docs/app-attribution'],
  defaultBaseUrl: 'https://openrouter.ai/api/v1',
  recognise: (u) => hostIs(u, 'openrouter.ai'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    const m = bare(model);
    const always = ALWAYS_THINKS.test(m) || /^o[134](-|$)/.test(m) || /^gemini-(2\.5-pro|[3-9])/.test(m);
    return plainRules({
      thinking: (mode) => (mode === 'off' ? { reasoning: { effort: 'none' } } : mode === 'on' ? { reasoning: { enabled: true } } : NONE),
      reasonsWhenOff: always,
      thinksByDefault: always,
    });
  },
  replay: { message: ['reasoning_details'], required: [], toolCall: [] },
  headers: () => ({ 'HTTP-Referer': APP_REFERER, 'X-Title': APP_TITLE }),
  extraBody: (opts) => (opts.providerPin && opts.providerPin.length > 0 ? { provider: { order: [...opts.providerPin], allow_fallbacks: false } } : {}),
};

const QWEN: Dialect = {
  id: 'qwen',
  label: 'Qwen (DashScope)',
  // Hybrid-thinking models switch per request with `enable_thinking` (not a standard OpenAI
  // parameter: top level of the body); reasoning in `reasoning_content`. Thinking-only models (QwQ,
  // *-thinking) cannot switch it off.
  //   https://help.aliyun.com/en/model-studio/deep-thinking
  // Whether `reasoning_content` must go back inside a tool loop: not said in the docs found; it is
  // echoed on tool-call messages (the Qwen3 chat template renders it there), never required.
  // Context window and prices: per model on the model list (several priced in tiers by input
  // length), not pinned here: no cost is shown.
  docs: ['https://help.aliyun.com/en/model-studio/deep-thinking'],
  defaultBaseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
  recognise: (u) => /(^|\.)dashscope(-intl|-us)?\.aliyuncs\.com$/.test(u.hostname.toLowerCase()) || hostIs(u, 'dashscope.aliyuncs.com'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    const always = ALWAYS_THINKS.test(bare(model));
    return plainRules({ thinking: always ? () => NONE : enableThinking, reasonsWhenOff: always, thinksByDefault: always });
  },
  replay: { message: ['reasoning_content'], required: [], toolCall: [] },
  headers: noHeaders,
  extraBody: noBody,
};

const KIMI: Dialect = {
  id: 'kimi',
  label: 'Kimi (Moonshot)',
  // kimi-k2.5 / kimi-k2.6 think by default and switch off with `"thinking": {"type": "disabled"}`;
  // kimi-k2-thinking always thinks. Reasoning in `reasoning_content`, which is to be kept in the
  // context for multi-step tool calls. The thinking models are run at their fixed temperature
  // (the guide sends 1.0): Worldline's temperature is not sent to them.
  //   https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model
  // Context window 256K (262,144) for the K2 thinking family, per the same guide; moonshot-v1-*k by name.
  // Prices: not pinned (CNY, changed with each K2 release; not checked for this table): no cost is shown.
  docs: ['https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model', 'https://platform.moonshot.ai/docs/api/chat'],
  defaultBaseUrl: 'https://api.moonshot.cn/v1',
  recognise: (u) => hostIs(u, 'api.moonshot.cn', 'api.moonshot.ai', 'moonshot.cn', 'moonshot.ai'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    const m = bare(model);
    const switchable = /^kimi-k2\.\d/.test(m) && !/code/.test(m);
    const always = /^kimi-k2-thinking/.test(m) || /^kimi-k[3-9]/.test(m) || (/^kimi-k2\.\d/.test(m) && /code/.test(m));
    const v1 = /^moonshot-v1-(\d+)k/.exec(m);
    const contextWindow = switchable || always ? 262_144 : v1 ? Number(v1[1]) * 1024 : undefined;
    return plainRules({
      temperature: !(switchable || always),
      thinking: switchable ? typeSwitch : () => NONE,
      thinksByDefault: switchable || always,
      reasonsWhenOff: always,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
    });
  },
  // Kept in tool loops, and the thinking models refuse a tool-call message without it ("thinking is
  // enabled but reasoning_content is missing"): sent as '' when none was stored, as for DeepSeek.
  replay: { message: ['reasoning_content'], required: ['reasoning_content'], toolCall: [] },
  headers: noHeaders,
  extraBody: noBody,
};

const GLM: Dialect = {
  id: 'glm',
  label: 'GLM (Zhipu / Z.ai)',
  // `"thinking": {"type": "enabled|disabled"}` (GLM-4.5 and later; on by default from GLM-4.7).
  // Interleaved thinking with tools: "thinking blocks should be explicitly preserved and returned
  // together with the tool results" — `reasoning_content` goes back on tool-call messages.
  //   https://docs.bigmodel.cn/cn/guide/capabilities/thinking-mode , https://docs.z.ai/guides/capabilities/thinking-mode
  // Context window: 128K for GLM-4.5, 200K for GLM-4.6 and later (model overview pages).
  // Prices: not pinned (CNY, by model and input length; not checked for this table): no cost is shown.
  docs: ['https://docs.bigmodel.cn/cn/guide/capabilities/thinking-mode', 'https://docs.z.ai/guides/capabilities/thinking-mode'],
  defaultBaseUrl: 'https://open.bigmodel.cn/api/paas/v4',
  recognise: (u) => hostIs(u, 'open.bigmodel.cn', 'bigmodel.cn', 'api.z.ai'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    const m = bare(model);
    const hybrid = /^glm-(4\.[5-9]|[5-9])/.test(m);
    const always = /^glm-z1/.test(m);
    const contextWindow = /^glm-4\.5/.test(m) ? 128_000 : hybrid ? 200_000 : undefined;
    return plainRules({
      thinking: hybrid ? typeSwitch : () => NONE,
      thinksByDefault: always || /^glm-(4\.[7-9]|[5-9])/.test(m),
      reasonsWhenOff: always,
      ...(contextWindow !== undefined ? { contextWindow } : {}),
    });
  },
  replay: { message: ['reasoning_content'], required: [], toolCall: [] },
  headers: noHeaders,
  extraBody: noBody,
};

const SILICONFLOW: Dialect = {
  id: 'siliconflow',
  label: 'SiliconFlow',
  // `enable_thinking` "switches between thinking and non-thinking modes" for the models it lists
  // (Qwen3, GLM-4.5+, DeepSeek-V3.1/3.2, Hunyuan-A13B…); `thinking_budget` (128–32768) caps the
  // chain of thought of reasoning models. Reasoning in `reasoning_content`.
  //   https://docs.siliconflow.cn/cn/api-reference/chat-completions/chat-completions
  //   https://docs.siliconflow.cn/cn/userguide/capabilities/reasoning
  // Replay inside tool loops: not documented; stored reasoning is echoed on tool-call messages.
  docs: ['https://docs.siliconflow.cn/cn/api-reference/chat-completions/chat-completions', 'https://docs.siliconflow.cn/cn/userguide/capabilities/reasoning'],
  defaultBaseUrl: 'https://api.siliconflow.cn/v1',
  recognise: (u) => hostIs(u, 'api.siliconflow.cn', 'api.siliconflow.com', 'siliconflow.cn', 'siliconflow.com'),
  needsKey: true,
  local: false,
  tools: 'documented',
  model(model) {
    const m = bare(model);
    const always = ALWAYS_THINKS.test(m);
    const hybrid = !always && !/instruct-2507/.test(m) && /^(qwen3|glm-(4\.[5-9]|[5-9])|hunyuan-a13b|deepseek-v3\.[12])/.test(m);
    return plainRules({
      // A model that cannot stop thinking gets a small chain-of-thought budget instead.
      thinking: (mode) => (hybrid ? enableThinking(mode) : always && mode === 'off' ? { thinking_budget: 1024 } : NONE),
      thinksByDefault: hybrid || always,
      reasonsWhenOff: always,
    });
  },
  replay: { message: ['reasoning_content'], required: [], toolCall: [] },
  headers: noHeaders,
  extraBody: noBody,
};

function localDialect(id: DialectId, label: string, port: string, docs: string[], warning?: Dialect['warning']): Dialect {
  return {
    id,
    label,
    // No key; tool calling depends on the model and its template, so it is tried, not assumed;
    // no thinking switch is sent (each model's template has its own, if any).
    docs,
    defaultBaseUrl: `http://localhost:${port}/v1`,
    recognise: (u) => localPort(u, port),
    needsKey: false,
    local: true,
    tools: 'unknown',
    ...(warning ? { warning } : {}),
    // Ollama's OpenAI endpoint runs with the server's context length (4k below 24 GiB VRAM unless
    // OLLAMA_CONTEXT_LENGTH is raised) and cuts longer prompts silently.
    model: () => plainRules(id === 'ollama' ? { contextWindow: 4096 } : {}),
    replay: ECHO_REPLAY,
    headers: noHeaders,
    extraBody: noBody,
  };
}

const OLLAMA = localDialect('ollama', 'Ollama', '11434', ['https://docs.ollama.com/openai', 'https://docs.ollama.com/context-length'], 'ollamaDefaultContext');
const LMSTUDIO = localDialect('lmstudio', 'LM Studio', '1234', ['https://lmstudio.ai/docs/app/api/endpoints/openai']);
const VLLM = localDialect('vllm', 'vLLM', '8000', ['https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html']);
const LLAMACPP = localDialect('llamacpp', 'llama.cpp server', '8080', ['https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md']);

const OPENAI_COMPATIBLE: Dialect = {
  id: 'openai-compatible',
  label: 'OpenAI-compatible',
  // An unknown endpoint: plain OpenAI chat completions (max_tokens, temperature, no thinking
  // switch). A 400 naming a rejected parameter drops it once and is remembered (rejected.ts).
  docs: ['https://platform.openai.com/docs/api-reference/chat/create'],
  recognise: () => true,
  needsKey: true,
  local: false,
  tools: 'unknown',
  model: () => plainRules(),
  replay: ECHO_REPLAY,
  headers: noHeaders,
  extraBody: noBody,
};

/** Every row, in recognition order (the catch-all last). */
export const DIALECTS: readonly Dialect[] = [DEEPSEEK, OPENAI, GEMINI, OPENROUTER, QWEN, KIMI, GLM, SILICONFLOW, OLLAMA, LMSTUDIO, VLLM, LLAMACPP, OPENAI_COMPATIBLE];

export function dialectById(id: DialectId): Dialect {
  return DIALECTS.find((d) => d.id === id) ?? OPENAI_COMPATIBLE;
}

export function isProviderSetting(v: unknown): v is ProviderSetting {
  return v === 'auto' || (typeof v === 'string' && (DIALECT_IDS as readonly string[]).includes(v));
}

/**
 * The dialect of an endpoint: the one `worldline.provider` names, else the one its base URL is
 * recognised as (host, or a local server's port), else plain OpenAI-compatible.
 */
export function dialectFor(baseUrl: string, providerSetting: ProviderSetting | string = 'auto'): Dialect {
  if (isProviderSetting(providerSetting) && providerSetting !== 'auto') return dialectById(providerSetting);
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return OPENAI_COMPATIBLE;
  }
  return DIALECTS.find((d) => d.recognise(url)) ?? OPENAI_COMPATIBLE;
}

/**
 * The dialect of one of the settings' endpoints. `worldline.provider` names the main endpoint's
 * provider, so it applies to another endpoint (the scribe's) only when that has the same origin;
 * otherwise that one is recognised from its own URL.
 */
export function dialectForEndpoint(endpoint: string, settings: { baseUrl: string; provider?: ProviderSetting }): Dialect {
  return dialectFor(endpoint, sameEndpoint(endpoint, settings.baseUrl) ? settings.provider ?? 'auto' : 'auto');
}

/** What the clients send for one request, from the rules and what was asked. */
export interface RequestShape {
  /** Body fields to merge (thinking switch, max tokens field, temperature, extra body). */
  fields: Record<string, unknown>;
  /** The output cap actually sent (raised for reasoning where the model reasons anyway). */
  maxTokens?: number;
}

/** Extra output tokens a side call gets when the model spends part of its cap on reasoning. */
export const REASONING_ALLOWANCE = 8192;

export interface ShapeInput {
  model: string;
  thinking: ThinkingMode;
  temperature?: number;
  maxTokens?: number;
  /** Parameters the endpoint rejected before (rejected.ts): never sent again. */
  rejected?: ReadonlySet<string>;
  /** The caller's max tokens field, overriding the dialect's (a configured client). */
  maxTokensField?: MaxTokensField;
  options?: DialectOptions;
}

/** True when the model will reason in this mode, so a capped answer needs room for it. */
export function reasonsIn(rules: ModelRules, mode: ThinkingMode): boolean {
  if (mode === 'off') return rules.reasonsWhenOff;
  // 'on' only turns reasoning on where there is a switch to send.
  return rules.thinksByDefault || (mode === 'on' && Object.keys(rules.thinking('on')).length > 0);
}

/** The body fields of a request under a dialect's rules. Pure; key order is stable. */
export function requestShape(dialect: Dialect, input: ShapeInput): RequestShape {
  const rules = dialect.model(input.model);
  const rejected = input.rejected ?? new Set<string>();
  const fields: Record<string, unknown> = {};
  if (input.temperature !== undefined && rules.temperature && !rejected.has('temperature')) fields['temperature'] = input.temperature;
  const out: RequestShape = { fields };
  if (input.maxTokens !== undefined) {
    const preferred = input.maxTokensField ?? rules.maxTokensField;
    const other: MaxTokensField = preferred === 'max_tokens' ? 'max_completion_tokens' : 'max_tokens';
    const field = !rejected.has(preferred) ? preferred : !rejected.has(other) ? other : undefined;
    const cap = reasonsIn(rules, input.thinking) ? input.maxTokens + REASONING_ALLOWANCE : input.maxTokens;
    if (field) {
      fields[field] = cap;
      out.maxTokens = cap;
    }
  }
  const extra = { ...rules.thinking(input.thinking), ...dialect.extraBody(input.options ?? {}) };
  for (const [k, v] of Object.entries(extra)) if (!rejected.has(k)) fields[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Replay.

export interface ReplayedFields {
  /** Fields to put on the wire assistant message. */
  message: Record<string, unknown>;
  /** Fields to put on each wire tool call, by call id. */
  toolCalls: Record<string, Record<string, unknown>>;
}

function pick(from: ProviderFields | undefined, names: readonly string[], skip: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!from) return out;
  for (const n of names) if (!skip.has(n) && Object.prototype.hasOwnProperty.call(from, n) && from[n] !== undefined) out[n] = from[n];
  return out;
}

/**
 * The stored provider fields of one context message that go back on the wire under a dialect:
 * only on assistant messages that carry tool calls (docs of every row: reasoning outside a tool
 * loop may be dropped), only the fields the row names, values unchanged; a required field that was
 * never stored goes as '' (DeepSeek: present on every such message, in every later request).
 * `skip`: fields the endpoint rejected (never required ones).
 */
export function replayFields(
  dialect: Dialect,
  message: Pick<ContextMessage, 'role' | 'providerFields'> & { toolCalls?: readonly Pick<ToolCall, 'id' | 'providerFields'>[] },
  skip: ReadonlySet<string> = new Set<string>(),
): ReplayedFields {
  const out: ReplayedFields = { message: {}, toolCalls: {} };
  const calls = message.toolCalls ?? [];
  if (message.role !== 'assistant' || calls.length === 0) return out;
  const required = new Set(dialect.replay.required);
  const optionalSkip = new Set([...skip].filter((s) => !required.has(s)));
  out.message = pick(message.providerFields, dialect.replay.message, optionalSkip);
  for (const r of dialect.replay.required) if (!(r in out.message)) out.message[r] = '';
  for (const c of calls) {
    const fields = pick(c.providerFields, dialect.replay.toolCall, optionalSkip);
    if (Object.keys(fields).length > 0) out.toolCalls[c.id] = fields;
  }
  return out;
}
