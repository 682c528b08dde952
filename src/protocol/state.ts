// The messages between the Scene State page (media/state.js) and the extension.
import { decoderFor } from './decode';
import type { SceneState } from '../state/types';

export type ScribeOutcomeKind = 'applied' | 'stale' | 'failed' | 'skipped';

export interface ScribeStatus {
  running: boolean;
  last?: { kind: ScribeOutcomeKind; warnings: string[]; error?: string; at: string };
}

export interface StateViewModel {
  state: SceneState;
  yaml: string;
  departed: string[];
  source: { by?: string; entryId?: string; warnings: string[] };
  readWarnings: string[];
  scribe: ScribeStatus;
  readOnly: boolean;
  hasSession: boolean;
}

export interface EditResult {
  ok: boolean;
  error?: string;
  warnings?: string[];
}

export type ToStatePage =
  | { type: 'render'; model: StateViewModel }
  /** Only the scribe's status changed (it started or finished); the state shown stays. */
  | { type: 'scribe'; scribe: ScribeStatus }
  | ({ type: 'editResult' } & EditResult)
  /** Opens the YAML editor with this text (Update Scene State of a continuity finding: the fix prefilled). */
  | { type: 'openYaml'; text: string };

export type FromStatePage =
  | { type: 'ready' }
  /** Validated by the core's userEdit, so any JSON value may come. */
  | { type: 'patch'; patch: unknown }
  | { type: 'applyYaml'; text: string };

export const decodeFromStatePage = decoderFor<FromStatePage>('state', {
  ready: {},
  patch: { patch: 'present' },
  applyYaml: { text: 'string' },
});
