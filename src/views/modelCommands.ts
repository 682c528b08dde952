// Set API Key and Select Model: the two commands that choose where the agent's requests go and
// what they carry. A key is bound to the endpoint it was set for and goes nowhere else (the
// core's rule, src/model/keys.ts); it lives in SecretStorage only.
import * as vscode from 'vscode';
import { isDemoModel, listModels } from '../model/models';
import { scribeHasOwnEndpoint } from '../model/keys';
import { readSettings, type ApiKeys } from './settings';

/**
 * Set API Key: the main endpoint's key, or, when the scribe has an endpoint of its own, the
 * scribe's (asked which). An empty key removes it.
 */
export async function setApiKey(keys: ApiKeys, key?: string, target?: 'main' | 'scribe'): Promise<boolean> {
  const settings = readSettings();
  let which = target;
  if (which === undefined && scribeHasOwnEndpoint(settings.endpoints)) {
    const picked = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('The writing model'), description: settings.baseUrl, which: 'main' as const },
        { label: vscode.l10n.t('The scribe and summaries'), description: settings.scribeBaseUrl, which: 'scribe' as const },
      ],
      { title: vscode.l10n.t('Set API Key'), placeHolder: vscode.l10n.t('The scribe has an endpoint of its own: which key?') },
    );
    if (!picked) return false;
    which = picked.which;
  }
  const role = which ?? 'main';
  const value = key ?? await vscode.window.showInputBox({
    title: role === 'scribe' ? vscode.l10n.t('Set API Key for the Scribe') : vscode.l10n.t('Set API Key'),
    prompt: vscode.l10n.t('The key for {0}. It is kept in VS Code\'s secret storage, never in settings or logs, and is sent to this endpoint only.', role === 'scribe' ? settings.scribeBaseUrl : settings.baseUrl),
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return false;
  const stored = await keys.set(role, value, settings);
  if (!stored.ok) {
    void vscode.window.showErrorMessage(vscode.l10n.t('The key was not stored: {0} is not an http(s) address, so there is no endpoint to bind it to. Fix the setting first.', stored.endpoint));
    return false;
  }
  return true;
}

/** Select Model: from the endpoint's list (the demo model labelled), or typed in; saved to the workspace. */
export async function selectModel(keys: ApiKeys, model?: string): Promise<string | undefined> {
  let chosen = model;
  if (!chosen) {
    const settings = readSettings();
    const known = await listModels(settings.baseUrl, (await keys.forRequests(settings)).main);
    const items: (vscode.QuickPickItem & { id?: string })[] = known.map((id) => ({ label: id, description: isDemoModel(id) ? vscode.l10n.t('demo model (scripted, offline)') : undefined, id }));
    items.push({ label: vscode.l10n.t('Enter a model name…') });
    const pick = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Select Model'), placeHolder: settings.model || settings.baseUrl });
    if (!pick) return undefined;
    chosen = pick.id ?? await vscode.window.showInputBox({ title: vscode.l10n.t('Select Model'), prompt: vscode.l10n.t('Model name, e.g. gpt-4o or deepseek-chat'), value: settings.model });
  }
  if (!chosen || !chosen.trim()) return undefined;
  await vscode.workspace.getConfiguration('worldline').update('model', chosen.trim(), vscode.ConfigurationTarget.Workspace);
  return chosen.trim();
}
