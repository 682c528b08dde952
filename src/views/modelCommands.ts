// Set API Key and Select Model: the two commands that choose where the agent's requests go and
// what they carry. A key is bound to the endpoint it was set for and goes nowhere else (the
// core's rule, src/model/keys.ts); it lives in SecretStorage only.
import * as vscode from 'vscode';
import { isDemoModel, listModels } from '../model/models';
import { endpointOfRole, keyRolesFor, type KeyRole } from '../model/keys';
import { readSettings, type ApiKeys } from './settings';

export function isKeyRole(v: unknown): v is KeyRole {
  return v === 'main' || v === 'scribe' || v === 'embeddings';
}

/**
 * Set API Key: the main endpoint's key, or, when the scribe or the embeddings model has an
 * endpoint of its own, that one's (asked which). An empty key removes it.
 */
export async function setApiKey(keys: ApiKeys, key?: string, target?: KeyRole): Promise<boolean> {
  const settings = readSettings();
  let which = target;
  const roles = keyRolesFor(settings.endpoints, settings.memory.embeddingModel !== '');
  if (which === undefined && roles.length > 1) {
    const label: Record<KeyRole, string> = {
      main: vscode.l10n.t('The writing model'),
      scribe: vscode.l10n.t('The scribe and summaries'),
      embeddings: vscode.l10n.t('The embeddings model (memory)'),
    };
    const picked = await vscode.window.showQuickPick(
      roles.map((r) => ({ label: label[r], description: endpointOfRole(settings.endpoints, r), which: r })),
      { title: vscode.l10n.t('Set API Key'), placeHolder: vscode.l10n.t('Another endpoint is in use besides the writing model\'s: which key?') },
    );
    if (!picked) return false;
    which = picked.which;
  }
  const role = which ?? 'main';
  const title: Record<KeyRole, string> = {
    main: vscode.l10n.t('Set API Key'),
    scribe: vscode.l10n.t('Set API Key for the Scribe'),
    embeddings: vscode.l10n.t('Set API Key for the Embeddings Model'),
  };
  const value = key ?? await vscode.window.showInputBox({
    title: title[role],
    prompt: vscode.l10n.t('The key for {0}. It is kept in VS Code\'s secret storage, never in settings or logs, and is sent to this endpoint only.', endpointOfRole(settings.endpoints, role)),
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
