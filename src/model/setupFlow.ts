// The facts the first-run steps depend on (a folder, worldline.yaml, a key for the main endpoint),
// read one read at a time and kept so the Chat can render synchronously; the step itself is
// computed from them (src/protocol/chatModel.ts `setupStep`). The same facts are context keys,
// which the walkthrough's steps complete on.
import type { SetupInputs } from '../protocol/chatModel';
import { dialectForEndpoint } from './dialects';
import type { FlowLog, SetContext, SettingsPort } from './flowPorts';
import type { KeyStore } from './keyStore';
import { isDemoModel } from './models';

export interface SetupPorts {
  /** The open novel's folder, undefined when no folder is open. */
  novel(): { hasProjectFile(): Promise<boolean> } | undefined;
  settings: Pick<SettingsPort, 'read'>;
  keys: KeyStore;
  setContext: SetContext;
  log: FlowLog;
}

interface Facts {
  project: boolean;
  keyMissing: boolean;
}

/** The main endpoint's host, for the words (the text itself when it is no URL). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export class SetupFacts {
  private facts: Facts | undefined;
  private running: Promise<void> = Promise.resolve();

  /** `changed` runs when a read finds other facts than the last (and after the first read). */
  constructor(private readonly p: SetupPorts, private readonly changed: () => void) {}

  /** The inputs of the Chat's first-run step; undefined until they have been read once (no flash of a wrong step). */
  inputs(): SetupInputs | undefined {
    if (!this.facts) return undefined;
    return { folder: this.p.novel() !== undefined, project: this.facts.project, keyMissing: this.facts.keyMissing, host: hostOf(this.p.settings.read().baseUrl) };
  }

  /** Re-reads the facts (one read at a time); a failed read is logged and the facts kept. */
  refresh(): Promise<void> {
    this.running = this.running.then(() => this.read()).catch((err: unknown) => this.p.log.warn(`reading the setup state failed: ${err instanceof Error ? err.message : String(err)}`));
    return this.running;
  }

  /** The first reply arrived: the walkthrough's "first instruction" step is done. */
  wrote(): void {
    void Promise.resolve(this.p.setContext('worldline.wrote', true))
      .then(undefined, (err: unknown) => this.p.log.warn(`setting worldline.wrote failed: ${err instanceof Error ? err.message : String(err)}`));
  }

  private async read(): Promise<void> {
    const novel = this.p.novel();
    const settings = this.p.settings.read();
    const project = novel ? await novel.hasProjectFile() : false;
    // The demo model is a scripted local server: it answers without a key, so none is asked for.
    const needsKey = dialectForEndpoint(settings.baseUrl, settings).needsKey && !isDemoModel(settings.model);
    const keyMissing = needsKey && (await this.p.keys.forRequests(settings)).main === '';
    const before = this.facts;
    this.facts = { project, keyMissing };
    await this.p.setContext('worldline.hasProject', project);
    await this.p.setContext('worldline.keyReady', !keyMissing);
    if (!before || before.project !== project || before.keyMissing !== keyMissing) this.changed();
  }
}
