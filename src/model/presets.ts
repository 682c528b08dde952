// The providers Choose Provider offers: where each one's OpenAI-compatible endpoint is, which
// dialect it speaks (dialects.ts), whether it needs a key, and a model to suggest when the
// endpoint's /models cannot be read. Each base URL cites the provider's documentation page that
// gives it. The regions are separate rows because a key from one region does not work in the other.
import { dialectById, type DialectId, type ProviderSetting } from './dialects';
import { endpointOrigin } from './keys';

export type PresetId =
  | 'deepseek'
  | 'openai'
  | 'openrouter'
  | 'gemini'
  | 'qwen'
  | 'qwen-intl'
  | 'kimi'
  | 'kimi-intl'
  | 'glm'
  | 'glm-intl'
  | 'siliconflow'
  | 'siliconflow-intl'
  | 'ollama'
  | 'lmstudio'
  | 'custom';

export interface Preset {
  id: PresetId;
  /** The provider's own name (not translated). */
  label: string;
  /** Which of a provider's regional endpoints this row is, when it has more than one. */
  region?: 'china' | 'international';
  /** The documented base URL; none for `custom` (the novelist types it). */
  baseUrl?: string;
  /** What `worldline.provider` is set to: the dialect, or `auto` (recognised from the URL) for `custom`. */
  provider: ProviderSetting;
  /** False for local servers: no key is asked for. */
  needsKey: boolean;
  /** A model to suggest when the endpoint lists none (local servers: whatever is loaded, so none). */
  model?: string;
  /** Where the base URL is documented. */
  docs: string;
}

function row(id: PresetId, label: string, dialect: DialectId, baseUrl: string, docs: string, extra: Partial<Preset> = {}): Preset {
  return { id, label, baseUrl, provider: dialect, needsKey: dialectById(dialect).needsKey, docs, ...extra };
}

/** In the order the QuickPick shows them: the Chinese providers and the English ones as the issue lists them. */
export const PRESETS: readonly Preset[] = [
  // "base_url: https://api.deepseek.com" (the /v1 form works too): https://api-docs.deepseek.com/
  row('deepseek', 'DeepSeek', 'deepseek', 'https://api.deepseek.com', 'https://api-docs.deepseek.com/', { model: 'deepseek-chat' }),
  // The API reference's base URL: https://platform.openai.com/docs/api-reference/introduction
  row('openai', 'OpenAI', 'openai', 'https://api.openai.com/v1', 'https://platform.openai.com/docs/api-reference/introduction', { model: 'gpt-4.1' }),
  // "base_url='https://openrouter.ai/api/v1'": https://openrouter.ai/docs/quickstart
  row('openrouter', 'OpenRouter', 'openrouter', 'https://openrouter.ai/api/v1', 'https://openrouter.ai/docs/quickstart', { model: 'deepseek/deepseek-chat' }),
  // "base_url='https://generativelanguage.googleapis.com/v1beta/openai/'": https://ai.google.dev/gemini-api/docs/openai
  row('gemini', 'Gemini', 'gemini', 'https://generativelanguage.googleapis.com/v1beta/openai/', 'https://ai.google.dev/gemini-api/docs/openai', { model: 'gemini-2.5-flash' }),
  // "China (Beijing): https://dashscope.aliyuncs.com/compatible-mode/v1", "Singapore:
  // https://dashscope-intl.aliyuncs.com/compatible-mode/v1":
  // https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope
  row('qwen', 'Qwen (DashScope)', 'qwen', 'https://dashscope.aliyuncs.com/compatible-mode/v1', 'https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope', { region: 'china', model: 'qwen-plus' }),
  row('qwen-intl', 'Qwen (DashScope)', 'qwen', 'https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'https://www.alibabacloud.com/help/en/model-studio/compatibility-of-openai-with-dashscope', { region: 'international', model: 'qwen-plus' }),
  // "base_url 设置为 https://api.moonshot.cn/v1": https://platform.kimi.com/docs/api/overview ; the
  // global platform (platform.moonshot.ai) serves https://api.moonshot.ai/v1: https://platform.moonshot.ai/docs/overview
  row('kimi', 'Kimi (Moonshot)', 'kimi', 'https://api.moonshot.cn/v1', 'https://platform.kimi.com/docs/api/overview', { region: 'china', model: 'kimi-k2.5' }),
  row('kimi-intl', 'Kimi (Moonshot)', 'kimi', 'https://api.moonshot.ai/v1', 'https://platform.moonshot.ai/docs/overview', { region: 'international', model: 'kimi-k2.5' }),
  // "国内 API 地址: https://open.bigmodel.cn/api/paas/v4/": https://docs.bigmodel.cn/cn/guide/develop/python/introduction ;
  // "general API endpoint https://api.z.ai/api/paas/v4" (not the Coding Plan one): https://docs.z.ai/api-reference/introduction
  row('glm', 'GLM (Zhipu BigModel)', 'glm', 'https://open.bigmodel.cn/api/paas/v4', 'https://docs.bigmodel.cn/cn/guide/develop/python/introduction', { region: 'china', model: 'glm-4.6' }),
  row('glm-intl', 'GLM (Z.ai)', 'glm', 'https://api.z.ai/api/paas/v4', 'https://docs.z.ai/api-reference/introduction', { region: 'international', model: 'glm-4.6' }),
  // "base_url="https://api.siliconflow.cn/v1"": https://docs.siliconflow.cn/docs/userguide/quickstart ;
  // the global platform's server https://api.siliconflow.com/v1: https://docs.siliconflow.com/en/api-reference/chat-completions/chat-completions
  row('siliconflow', 'SiliconFlow', 'siliconflow', 'https://api.siliconflow.cn/v1', 'https://docs.siliconflow.cn/docs/userguide/quickstart', { region: 'china', model: 'deepseek-ai/DeepSeek-V3' }),
  row('siliconflow-intl', 'SiliconFlow', 'siliconflow', 'https://api.siliconflow.com/v1', 'https://docs.siliconflow.com/en/api-reference/chat-completions/chat-completions', { region: 'international', model: 'deepseek-ai/DeepSeek-V3' }),
  // "base_url='http://localhost:11434/v1/', api_key='ollama' # required but ignored": https://docs.ollama.com/api/openai-compatibility
  row('ollama', 'Ollama', 'ollama', 'http://localhost:11434/v1', 'https://docs.ollama.com/api/openai-compatibility'),
  // "base_url="http://localhost:1234/v1"" (the server's default port 1234): https://lmstudio.ai/docs/api/openai-api
  row('lmstudio', 'LM Studio', 'lmstudio', 'http://localhost:1234/v1', 'https://lmstudio.ai/docs/api/openai-api'),
  // Any other OpenAI-compatible endpoint (vLLM, llama.cpp, a gateway…): recognised from its URL.
  { id: 'custom', label: 'OpenAI-compatible', provider: 'auto', needsKey: true, docs: 'https://platform.openai.com/docs/api-reference/chat/create' },
];

export const PRESET_IDS: readonly PresetId[] = PRESETS.map((p) => p.id);

export function isPresetId(v: unknown): v is PresetId {
  return typeof v === 'string' && (PRESET_IDS as readonly string[]).includes(v);
}

export function presetById(id: PresetId): Preset {
  return PRESETS.find((p) => p.id === id) ?? (PRESETS[PRESETS.length - 1] as Preset);
}

/**
 * The preset the current settings match (same endpoint origin and path, and the provider it sets
 * or `auto`), for marking it in the list; undefined for anything else.
 */
export function currentPreset(baseUrl: string, provider: ProviderSetting | undefined): Preset | undefined {
  const norm = normalizedEndpoint(baseUrl);
  if (norm === undefined) return undefined;
  return PRESETS.find((p) => p.baseUrl !== undefined && normalizedEndpoint(p.baseUrl) === norm && (provider === undefined || provider === 'auto' || provider === p.provider));
}

/** Origin plus path without trailing slashes: https://API.deepseek.com/ and https://api.deepseek.com are one endpoint. */
function normalizedEndpoint(url: string): string | undefined {
  const origin = endpointOrigin(url);
  if (origin === undefined) return undefined;
  return origin + new URL(url.trim()).pathname.replace(/\/+$/, '');
}

export type BaseUrlProblem = 'empty' | 'notUrl' | 'notHttp' | 'hasCredentials' | 'hasQuery';

/**
 * A base URL the novelist typed for a custom endpoint: trimmed, or why it cannot be one. User info
 * is refused (it would put a secret into the settings file); so are a query and a fragment (the
 * client appends /chat/completions to the path, which would land inside them).
 */
export function checkBaseUrl(text: string): { ok: true; url: string } | { ok: false; problem: BaseUrlProblem } {
  const t = text.trim();
  if (t === '') return { ok: false, problem: 'empty' };
  let url: URL;
  try {
    url = new URL(t);
  } catch {
    return { ok: false, problem: 'notUrl' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: 'notHttp' };
  if (url.hostname === '') return { ok: false, problem: 'notUrl' };
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'hasCredentials' };
  if (url.search !== '' || url.hash !== '') return { ok: false, problem: 'hasQuery' };
  return { ok: true, url: t };
}

/**
 * The models to offer, in order: the suggestion first when the endpoint has it (or lists nothing),
 * then the rest of the endpoint's list as it came.
 */
export function modelChoices(preset: Preset, listed: readonly string[]): { id: string; suggested: boolean }[] {
  const suggested = preset.model;
  const out: { id: string; suggested: boolean }[] = [];
  if (suggested !== undefined && (listed.length === 0 || listed.includes(suggested))) out.push({ id: suggested, suggested: true });
  for (const id of listed) if (id !== suggested) out.push({ id, suggested: false });
  return out;
}
