// Select Model: one of the endpoint's models (the demo model labelled as what it is), or a name
// typed in, saved to the workspace settings. The list is read with the key set for that endpoint.
import type { Text } from '../common/text';
import type { PickItem, Prompter } from '../protocol/prompter';
import { literal, type SettingsPort } from './flowPorts';
import type { KeyStore } from './keyStore';
import { isDemoModel, listModels } from './models';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export interface ModelFlowPorts {
  prompter: Prompter;
  settings: SettingsPort;
  keys: KeyStore;
}

/** The model now set, or undefined when none was chosen. */
export async function selectModel(p: ModelFlowPorts, model?: string): Promise<string | undefined> {
  let chosen = model;
  if (!chosen) {
    const settings = p.settings.read();
    const known = await listModels(settings.baseUrl, (await p.keys.forRequests(settings)).main);
    const items: PickItem<{ id?: string }>[] = known.map((id) => ({
      label: literal(id), ...(isDemoModel(id) ? { description: l10n.t('demo model (scripted, offline)') } : {}), value: { id },
    }));
    items.push({ label: l10n.t('Enter a model name…'), value: {} });
    const pick = await p.prompter.pick(items, { title: l10n.t('Select Model'), placeHolder: literal(settings.model || settings.baseUrl) });
    if (!pick) return undefined;
    chosen = pick.id ?? await p.prompter.ask({ title: l10n.t('Select Model'), prompt: l10n.t('Model name, e.g. gpt-4o or deepseek-chat'), value: settings.model });
  }
  if (!chosen || !chosen.trim()) return undefined;
  await p.settings.write('model', chosen.trim(), 'workspace');
  return chosen.trim();
}
