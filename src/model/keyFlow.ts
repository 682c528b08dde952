// Set API Key: the writing model's key, or, when the scribe or the embeddings model has an endpoint
// of its own, that one's (asked which). The key is bound to the endpoint it is set for and goes
// nowhere else (./keys.ts); an empty key removes it.
import type { Text } from '../common/text';
import type { Prompter } from '../protocol/prompter';
import { literal, tell, type FlowLog, type SettingsPort } from './flowPorts';
import { endpointOfRole, keyRolesFor, type KeyRole } from './keys';
import type { KeyStore } from './keyStore';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

export function isKeyRole(v: unknown): v is KeyRole {
  return v === 'main' || v === 'scribe' || v === 'embeddings';
}

export interface KeyFlowPorts {
  prompter: Prompter;
  settings: Pick<SettingsPort, 'read'>;
  keys: KeyStore;
  /** Where a failed notification is reported; without it, it is dropped. */
  log?: FlowLog;
}

const ROLE_LABEL: Record<KeyRole, Text> = {
  main: l10n.t('The writing model'),
  scribe: l10n.t('The scribe and summaries'),
  embeddings: l10n.t('The embeddings model (memory)'),
};

const ROLE_TITLE: Record<KeyRole, Text> = {
  main: l10n.t('Set API Key'),
  scribe: l10n.t('Set API Key for the Scribe'),
  embeddings: l10n.t('Set API Key for the Embeddings Model'),
};

/** True when a key was stored (or removed); false when cancelled or refused. */
export async function setApiKey(p: KeyFlowPorts, key?: string, target?: KeyRole): Promise<boolean> {
  const settings = p.settings.read();
  let role = target;
  const roles = keyRolesFor(settings.endpoints, settings.memory.embeddingModel !== '');
  if (role === undefined && roles.length > 1) {
    role = await p.prompter.pick(
      roles.map((r) => ({ label: ROLE_LABEL[r], description: literal(endpointOfRole(settings.endpoints, r)), value: r })),
      { title: l10n.t('Set API Key'), placeHolder: l10n.t('Another endpoint is in use besides the writing model\'s: which key?') },
    );
    if (role === undefined) return false;
  }
  const which = role ?? 'main';
  const value = key ?? await p.prompter.ask({
    title: ROLE_TITLE[which],
    prompt: l10n.t('The key for {0}. It is kept in VS Code\'s secret storage, never in settings or logs, and is sent to this endpoint only.', endpointOfRole(settings.endpoints, which)),
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return false;
  const stored = await p.keys.set(which, value, settings);
  if (!stored.ok) {
    tell(p, 'error', l10n.t('The key was not stored: {0} is not an http(s) address, so there is no endpoint to bind it to. Fix the setting first.', stored.endpoint));
    return false;
  }
  return true;
}
