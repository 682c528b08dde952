// Set API Key and Select Model: the core's flows (src/model/keyFlow.ts, src/model/modelFlow.ts)
// over VS Code's quick pick, input box, settings and secret storage.
import { setApiKey as setKeyFlow } from '../model/keyFlow';
import type { KeyRole } from '../model/keys';
import { selectModel as selectModelFlow } from '../model/modelFlow';
import { vscodePrompter } from './prompter';
import type { ApiKeys } from './settings';
import { vscodeSettings } from './shellPorts';

export { isKeyRole } from '../model/keyFlow';

/** Set API Key for the role (asked when another endpoint is in use); an empty key removes it. */
export function setApiKey(keys: ApiKeys, key?: string, target?: KeyRole): Promise<boolean> {
  return setKeyFlow({ prompter: vscodePrompter, settings: vscodeSettings, keys }, key, target);
}

/** Select Model: from the endpoint's list, or typed in; saved to the workspace. */
export function selectModel(keys: ApiKeys, model?: string): Promise<string | undefined> {
  return selectModelFlow({ prompter: vscodePrompter, settings: vscodeSettings, keys }, model);
}
