// Choose Provider and Test Connection: the first-run path from "which provider?" to a tested
// endpoint. Choose Provider sets `worldline.baseUrl` and `worldline.provider` (workspace), asks for
// the key unless the provider is a local server, and picks a model from the endpoint's /models.
// Test Connection sends one tiny tool-call request and says what it found (src/model/connectionTest.ts,
// worded by src/model/connectionWords.ts). Both take optional arguments, so tests and keybindings
// can run them without prompts.
import * as vscode from 'vscode';
import { connectionWords, type ConnectionWords } from '../model/connectionWords';
import { testConnection, type ConnectionReport } from '../model/connectionTest';
import { dialectById, dialectForEndpoint, isProviderSetting } from '../model/dialects';
import { endpointOrigin } from '../model/keys';
import { isDemoModel, listModels } from '../model/models';
import { checkBaseUrl, currentPreset, isPresetId, modelChoices, PRESETS, presetById, type BaseUrlProblem, type Preset } from '../model/presets';
import { requestOptions } from '../model/requestOptions';
import type { Log } from './log';
import { translate } from './notices';
import type { SettingsWatch } from './settingsWatch';
import { readSettings, type ApiKeys } from './settings';

export interface ChooseProviderArgs {
  /** A preset id (src/model/presets.ts); asked when absent. */
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

function args<T extends object>(raw: unknown): Partial<T> {
  return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Partial<T>) : {};
}

function regionWords(p: Preset): string | undefined {
  if (p.region === 'china') return vscode.l10n.t('China');
  if (p.region === 'international') return vscode.l10n.t('International');
  return undefined;
}

function problemWords(problem: BaseUrlProblem): string {
  switch (problem) {
    case 'empty': return vscode.l10n.t('Type the base URL of the endpoint, e.g. http://localhost:8000/v1');
    case 'notUrl': return vscode.l10n.t('This is not a URL. It looks like https://host/v1');
    case 'notHttp': return vscode.l10n.t('Only http:// and https:// endpoints can be used.');
    case 'hasCredentials': return vscode.l10n.t('Leave the user name and password out of the URL: the key is set with Set API Key and kept in secret storage.');
    case 'hasQuery': return vscode.l10n.t('Leave ?query and #fragment out: requests are made to paths under the base URL.');
  }
}

async function pickPreset(): Promise<Preset | undefined> {
  const settings = readSettings();
  const current = currentPreset(settings.baseUrl, settings.provider);
  const items = PRESETS.map((p) => ({
    label: p.id === 'custom' ? vscode.l10n.t('Other OpenAI-compatible endpoint…') : p.label,
    description: [regionWords(p), p.needsKey ? undefined : vscode.l10n.t('local, no key'), current?.id === p.id ? vscode.l10n.t('current') : undefined].filter(Boolean).join(' · ') || undefined,
    detail: p.baseUrl ?? vscode.l10n.t('vLLM, llama.cpp, a gateway…: you type its base URL'),
    preset: p,
  }));
  const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Choose Provider'), placeHolder: vscode.l10n.t('Where should the writing model\'s requests go?'), matchOnDetail: true });
  return pick?.preset;
}

async function askBaseUrl(initial: string): Promise<string | undefined> {
  const typed = await vscode.window.showInputBox({
    title: vscode.l10n.t('Choose Provider'),
    prompt: vscode.l10n.t('The base URL of the OpenAI-compatible endpoint (it usually ends in /v1).'),
    value: initial,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const checked = checkBaseUrl(v);
      return checked.ok ? undefined : problemWords(checked.problem);
    },
  });
  if (typed === undefined) return undefined;
  const checked = checkBaseUrl(typed);
  return checked.ok ? checked.url : undefined;
}

async function pickModel(preset: Preset, listed: string[], current: string): Promise<string | undefined> {
  const choices = modelChoices(preset, listed);
  const items: (vscode.QuickPickItem & { id?: string })[] = choices.map((c) => ({
    label: c.id,
    description: c.suggested ? vscode.l10n.t('suggested') : isDemoModel(c.id) ? vscode.l10n.t('demo model (scripted, offline)') : c.id === current ? vscode.l10n.t('current') : undefined,
    id: c.id,
  }));
  items.push({ label: vscode.l10n.t('Enter a model name…') });
  const placeHolder = listed.length === 0 ? vscode.l10n.t('The endpoint listed no models (no key yet, or no /models): type the name from the provider\'s model list.') : vscode.l10n.t('The model that writes the story');
  const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Select Model'), placeHolder });
  if (!pick) return undefined;
  if (pick.id) return pick.id;
  const typed = await vscode.window.showInputBox({ title: vscode.l10n.t('Select Model'), prompt: vscode.l10n.t('Model name, e.g. gpt-4o or deepseek-chat'), value: preset.model ?? current, ignoreFocusOut: true });
  return typed?.trim() || undefined;
}

/** Choose Provider. Undefined when the novelist cancelled before the endpoint was set. */
export async function chooseProvider(keys: ApiKeys, watch: SettingsWatch, log: Log, raw?: unknown): Promise<ChooseProviderResult | undefined> {
  const a = args<ChooseProviderArgs>(raw);
  const preset = isPresetId(a.preset) ? presetById(a.preset) : await pickPreset();
  if (!preset) return undefined;
  const given = typeof a.baseUrl === 'string' ? checkBaseUrl(a.baseUrl) : undefined;
  if (given && !given.ok) {
    void vscode.window.showErrorMessage(problemWords(given.problem));
    return undefined;
  }
  const baseUrl = given?.ok ? given.url : preset.baseUrl ?? await askBaseUrl(readSettings().baseUrl);
  if (!baseUrl) return undefined;
  const origin = endpointOrigin(baseUrl);
  // This command asks for the key itself: the settings watch must not ask a second time.
  if (origin) watch.markAsked(origin);
  const config = vscode.workspace.getConfiguration('worldline');
  // The novel's own settings; with no folder open there are none, so the user's.
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('provider', isProviderSetting(preset.provider) ? preset.provider : 'auto', target);
  await config.update('baseUrl', baseUrl, target);
  log.info(`provider: ${preset.id} at ${origin ?? 'an invalid address'}`);

  let settings = readSettings();
  const needsKey = dialectForEndpoint(settings.baseUrl, settings).needsKey;
  let keyReady = !needsKey || (await keys.forRequests(settings)).main !== '';
  if (needsKey && (a.key !== undefined || !keyReady)) {
    const value = typeof a.key === 'string' ? a.key : await vscode.window.showInputBox({
      title: vscode.l10n.t('Set API Key'),
      prompt: vscode.l10n.t('The key for {0}. It is kept in VS Code\'s secret storage, never in settings or logs, and is sent to this endpoint only.', baseUrl),
      placeHolder: vscode.l10n.t('Press Escape to set it later with Set API Key'),
      password: true,
      ignoreFocusOut: true,
    });
    if (value !== undefined && value.trim() !== '') {
      const stored = await keys.set('main', value, settings);
      keyReady = stored.ok;
    }
  }

  settings = readSettings();
  const key = (await keys.forRequests(settings)).main;
  let model = typeof a.model === 'string' && a.model.trim() ? a.model.trim() : undefined;
  if (!model) {
    const listed = await listModels(settings.baseUrl, key);
    model = await pickModel(preset, listed, settings.model);
  }
  if (model) await config.update('model', model, target);

  const dialect = preset.provider === 'auto' ? dialectForEndpoint(baseUrl, { baseUrl }) : dialectById(preset.provider);
  if (dialect.warning === 'ollamaDefaultContext') {
    void vscode.window.showWarningMessage(vscode.l10n.t('Ollama runs models with a 4,096-token context unless OLLAMA_CONTEXT_LENGTH is raised, and cuts longer prompts without a word: raise it (Ollama\'s docs, "Context length") before writing.'));
  }
  if (a.preset === undefined) {
    // Asked interactively: offer the test as the next step.
    const test = vscode.l10n.t('Test Connection');
    void Promise.resolve(vscode.window.showInformationMessage(vscode.l10n.t('The writing model is {0} at {1}.', model ?? '—', origin ?? baseUrl), test))
      .then((pick) => (pick === test ? vscode.commands.executeCommand('worldline.testConnection') : undefined))
      .then(undefined, (err: unknown) => log.warn(`the test offer failed: ${String(err)}`));
  }
  return { preset: preset.id, baseUrl, provider: preset.provider, ...(model ? { model } : {}), keyReady };
}

export interface TestConnectionArgs {
  /** Test this model instead of `worldline.model`. */
  model?: string;
  /** No notification (the caller shows the result). */
  quiet?: boolean;
}

/** Test Connection: the report, also shown in words (and logged, without the key). */
export async function runConnectionTest(keys: ApiKeys, log: Log, raw?: unknown): Promise<ConnectionReport | undefined> {
  const a = args<TestConnectionArgs>(raw);
  const settings = readSettings();
  const model = typeof a.model === 'string' && a.model.trim() ? a.model.trim() : settings.model;
  if (!model) {
    const select = vscode.l10n.t('Choose Provider…');
    void Promise.resolve(vscode.window.showWarningMessage(vscode.l10n.t('No model is chosen yet, so there is nothing to test.'), select))
      .then((pick) => (pick === select ? vscode.commands.executeCommand('worldline.chooseProvider') : undefined));
    return undefined;
  }
  const key = (await keys.forRequests(settings)).main;
  const opts = requestOptions(settings, settings.baseUrl, 'stream');
  const run = (signal?: AbortSignal): Promise<ConnectionReport> => testConnection({
    baseUrl: settings.baseUrl,
    apiKey: key,
    model,
    dialect: dialectForEndpoint(settings.baseUrl, settings),
    thinking: settings.thinking ?? 'auto',
    providerPin: settings.providerPin ?? [],
    timeoutMs: opts.timeoutMs,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(signal ? { signal } : {}),
  });
  const report = a.quiet
    ? await run()
    : await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Worldline: testing {0}…', model), cancellable: true },
      (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return run(abort.signal);
      },
    );
  log.info(`connection test: ${report.host} ${report.model} answered=${report.answered} tools=${report.tools ?? '-'} thinking=${report.thinking ?? '-'} context=${report.contextWindow?.tokens ?? '-'}${report.error ? ` error=${report.error.kind} ${report.error.message}` : ''}`);
  if (!a.quiet) show(connectionWords(report), log);
  return report;
}

function show(words: ConnectionWords, log: Log): void {
  const text = words.lines.map(translate).join(' ');
  const buttons: Record<NonNullable<ConnectionWords['action']>, [string, string]> = {
    setKey: [vscode.l10n.t('Set API Key'), 'worldline.setApiKey'],
    selectModel: [vscode.l10n.t('Select Model'), 'worldline.selectModel'],
    chooseProvider: [vscode.l10n.t('Choose Provider…'), 'worldline.chooseProvider'],
  };
  const action = words.action ? buttons[words.action] : undefined;
  const extra = action ? [action[0]] : [];
  const shown = words.level === 'info' ? vscode.window.showInformationMessage(text, ...extra)
    : words.level === 'warning' ? vscode.window.showWarningMessage(text, ...extra)
    : vscode.window.showErrorMessage(text, ...extra);
  void Promise.resolve(shown)
    .then((pick) => (action && pick === action[0] ? vscode.commands.executeCommand(action[1]) : undefined))
    .then(undefined, (err: unknown) => log.warn(`the connection report failed: ${String(err)}`));
}

/** Registers both commands. */
export function registerProviderCommands(keys: ApiKeys, watch: SettingsWatch, log: Log, onChosen: () => void): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('worldline.chooseProvider', async (raw?: unknown) => {
      const chosen = await chooseProvider(keys, watch, log, raw);
      if (chosen) onChosen();
      return chosen;
    }),
    vscode.commands.registerCommand('worldline.testConnection', (raw?: unknown) => runConnectionTest(keys, log, raw)),
  ];
}
