// Choose Provider: the first-run path from "which provider?" to an endpoint with a key and a model.
// It sets `worldline.provider` and `worldline.baseUrl` (the novel's settings), asks for the key
// unless the provider is a local server or a key is already set for that origin, and picks a model
// from the endpoint's /models. Every step can be given as an argument instead (tests, keybindings),
// and closing any question stops there.
import type { Text } from '../common/text';
import type { PickItem } from '../protocol/prompter';
import { dialectById, dialectForEndpoint, isProviderSetting } from './dialects';
import { commandArgs, literal, offerCommand, tell, type Asking, type SettingsPort } from './flowPorts';
import { endpointOrigin } from './keys';
import type { KeyStore } from './keyStore';
import { isDemoModel, listModels } from './models';
import { checkBaseUrl, currentPreset, isPresetId, modelChoices, PRESETS, presetById, type BaseUrlProblem, type Preset } from './presets';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface ChooseProviderArgs {
  /** A preset id (./presets.ts); asked when absent. */
  preset?: string;
  /** The base URL: required for `custom` (else asked), overrides the preset's otherwise. */
  baseUrl?: string;
  /** The model; picked from the endpoint's list when absent. */
  model?: string;
  /** The key; asked when absent and the provider needs one and none is set for the endpoint. '' sets none. */
  key?: string;
}

export interface ChooseProviderResult {
  preset: string;
  baseUrl: string;
  provider: string;
  model?: string;
  /** A key is set for the new endpoint (or none is needed). */
  keyReady: boolean;
}

export interface ProviderFlowPorts extends Asking {
  settings: SettingsPort;
  keys: KeyStore;
  /** Tells the settings watch that this origin's key is asked for here, so it does not ask again. */
  markAsked(origin: string): void;
}

export function regionWords(p: Preset): Text | undefined {
  if (p.region === 'china') return l10n.t('China');
  if (p.region === 'international') return l10n.t('International');
  return undefined;
}

export function baseUrlProblemWords(problem: BaseUrlProblem): Text {
  switch (problem) {
    case 'empty': return l10n.t('Type the base URL of the endpoint, e.g. http://localhost:8000/v1');
    case 'notUrl': return l10n.t('This is not a URL. It looks like https://host/v1');
    case 'notHttp': return l10n.t('Only http:// and https:// endpoints can be used.');
    case 'hasCredentials': return l10n.t('Leave the user name and password out of the URL: the key is set with Set API Key and kept in secret storage.');
    case 'hasQuery': return l10n.t('Leave ?query and #fragment out: requests are made to paths under the base URL.');
  }
}

/** The presets as the pick shows them: region, "local, no key" and "current" in the description. */
export function presetItems(p: ProviderFlowPorts): PickItem<Preset>[] {
  const settings = p.settings.read();
  const current = currentPreset(settings.baseUrl, settings.provider);
  return PRESETS.map((preset) => {
    const notes = [regionWords(preset), preset.needsKey ? undefined : l10n.t('local, no key'), current?.id === preset.id ? l10n.t('current') : undefined]
      .filter((t): t is Text => t !== undefined);
    return {
      label: preset.id === 'custom' ? l10n.t('Other OpenAI-compatible endpoint…') : literal(preset.label),
      ...(notes.length > 0 ? { description: literal(notes.map(p.say).join(' · ')) } : {}),
      detail: preset.baseUrl !== undefined ? literal(preset.baseUrl) : l10n.t('vLLM, llama.cpp, a gateway…: you type its base URL'),
      value: preset,
    };
  });
}

async function askBaseUrl(p: ProviderFlowPorts, initial: string): Promise<string | undefined> {
  const typed = await p.prompter.ask({
    title: l10n.t('Choose Provider'),
    prompt: l10n.t('The base URL of the OpenAI-compatible endpoint (it usually ends in /v1).'),
    value: initial,
    ignoreFocusOut: true,
    validate: (v) => {
      const checked = checkBaseUrl(v);
      return checked.ok ? undefined : baseUrlProblemWords(checked.problem);
    },
  });
  if (typed === undefined) return undefined;
  const checked = checkBaseUrl(typed);
  return checked.ok ? checked.url : undefined;
}

/** The model pick after the endpoint is set: the preset's suggestion first, or a name typed in. */
async function pickModel(p: ProviderFlowPorts, preset: Preset, listed: string[], current: string): Promise<string | undefined> {
  const items: PickItem<{ id?: string }>[] = modelChoices(preset, listed).map((c) => {
    const note = c.suggested ? l10n.t('suggested') : isDemoModel(c.id) ? l10n.t('demo model (scripted, offline)') : c.id === current ? l10n.t('current') : undefined;
    return { label: literal(c.id), ...(note ? { description: note } : {}), value: { id: c.id } };
  });
  items.push({ label: l10n.t('Enter a model name…'), value: {} });
  const placeHolder = listed.length === 0
    ? l10n.t('The endpoint listed no models (no key yet, or no /models): type the name from the provider\'s model list.')
    : l10n.t('The model that writes the story');
  const pick = await p.prompter.pick(items, { title: l10n.t('Select Model'), placeHolder });
  if (!pick) return undefined;
  if (pick.id) return pick.id;
  const typed = await p.prompter.ask({ title: l10n.t('Select Model'), prompt: l10n.t('Model name, e.g. gpt-4o or deepseek-chat'), value: preset.model ?? current, ignoreFocusOut: true });
  return typed?.trim() || undefined;
}

/** Asks for the main key when the endpoint needs one and (unless one was given) none is set for it. */
async function ensureKey(p: ProviderFlowPorts, given: unknown, baseUrl: string): Promise<boolean> {
  const settings = p.settings.read();
  const needsKey = dialectForEndpoint(settings.baseUrl, settings).needsKey;
  let keyReady = !needsKey || (await p.keys.forRequests(settings)).main !== '';
  if (!needsKey || (given === undefined && keyReady)) return keyReady;
  const value = typeof given === 'string' ? given : await p.prompter.ask({
    title: l10n.t('Set API Key'),
    prompt: l10n.t('The key for {0}. It is kept in VS Code\'s secret storage, never in settings or logs, and is sent to this endpoint only.', baseUrl),
    placeHolder: l10n.t('Press Escape to set it later with Set API Key'),
    password: true,
    ignoreFocusOut: true,
  });
  if (value !== undefined && value.trim() !== '') keyReady = (await p.keys.set('main', value, settings)).ok;
  return keyReady;
}

/** Choose Provider. Undefined when the novelist cancelled before the endpoint was set. */
export async function chooseProvider(p: ProviderFlowPorts, raw?: unknown): Promise<ChooseProviderResult | undefined> {
  const a = commandArgs<ChooseProviderArgs>(raw);
  const preset = isPresetId(a.preset) ? presetById(a.preset) : await p.prompter.pick(presetItems(p), {
    title: l10n.t('Choose Provider'), placeHolder: l10n.t('Where should the writing model\'s requests go?'), matchOnDetail: true,
  });
  if (!preset) return undefined;
  const given = typeof a.baseUrl === 'string' ? checkBaseUrl(a.baseUrl) : undefined;
  if (given && !given.ok) {
    tell(p, 'error', baseUrlProblemWords(given.problem));
    return undefined;
  }
  const baseUrl = given?.ok ? given.url : preset.baseUrl ?? await askBaseUrl(p, p.settings.read().baseUrl);
  if (!baseUrl) return undefined;
  const origin = endpointOrigin(baseUrl);
  // This command asks for the key itself: the settings watch must not ask a second time.
  if (origin) p.markAsked(origin);
  await p.settings.write('provider', isProviderSetting(preset.provider) ? preset.provider : 'auto', 'novel');
  await p.settings.write('baseUrl', baseUrl, 'novel');
  p.log.info(`provider: ${preset.id} at ${origin ?? 'an invalid address'}`);

  const keyReady = await ensureKey(p, a.key, baseUrl);

  const settings = p.settings.read();
  let model = typeof a.model === 'string' && a.model.trim() ? a.model.trim() : undefined;
  if (!model) {
    const listed = await listModels(settings.baseUrl, (await p.keys.forRequests(settings)).main);
    model = await pickModel(p, preset, listed, settings.model);
  }
  if (model) await p.settings.write('model', model, 'novel');

  const dialect = preset.provider === 'auto' ? dialectForEndpoint(baseUrl, { baseUrl }) : dialectById(preset.provider);
  if (dialect.warning === 'ollamaDefaultContext') {
    tell(p, 'warning', l10n.t('Ollama runs models with a 4,096-token context unless OLLAMA_CONTEXT_LENGTH is raised, and cuts longer prompts without a word: raise it (Ollama\'s docs, "Context length") before writing.'));
  }
  if (a.preset === undefined) {
    // Asked interactively: offer the test as the next step.
    offerCommand(p, 'info', l10n.t('The writing model is {0} at {1}.', model ?? '—', origin ?? baseUrl), l10n.t('Test Connection'), 'worldline.testConnection', [], 'the test offer');
  }
  return { preset: preset.id, baseUrl, provider: preset.provider, ...(model ? { model } : {}), keyReady };
}
