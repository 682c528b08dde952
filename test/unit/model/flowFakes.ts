// The ports of the provider, key, model and setup flows, faked for plain Node: the scripted Prompter
// (../fixtures/scriptedPrompter.ts) and one whose notifications fail, settings that a write changes
// (as VS Code's do), an in-memory secret store, a command registry and a log that record, and the
// shipped Chinese bundle as a translator.
import type { Say, Text } from '../../../src/common/text';
import type { CommandPort, FlowLog, SettingScope, SettingsPort, WrittenSetting } from '../../../src/model/flowPorts';
import { KeyStore, type SecretStore } from '../../../src/model/keyStore';
import { customHeaders } from '../../../src/model/requestOptions';
import { DEFAULT_BASE_URL, type WorldlineSettings } from '../../../src/model/settings';
import type { AskOptions, Level } from '../../../src/protocol/prompter';
import { english, ScriptedPrompter, type Answer, type Asked } from '../fixtures/scriptedPrompter';
import { bundle } from '../fixtures/translation';

export { english, ScriptedPrompter, type Answer };


/** The words as a Chinese novelist reads them (the shipped bundle; a missing key shows as itself, like VS Code). */
export const chinese: Say = (t) => (t.literal ? t.message : (bundle[t.message] ?? t.message).replace(/\{(\d+)\}/g, (m, i: string) => String(t.args[Number(i)] ?? m)));

export function zh(english: string): string {
  const out = bundle[english];
  if (out === undefined) throw new Error(`no translation for ${english}`);
  return out;
}

/** A Prompter whose notifications fail (the window went away), after recording them. */
export class FailingPrompter extends ScriptedPrompter {
  override notify(level: Level, text: Text, ...buttons: Text[]): Promise<Text | undefined> {
    void super.notify(level, text, ...buttons);
    return Promise.reject(new Error('the window is gone'));
  }
}

/** The notifications as level, English text and buttons. */
export function notes(p: ScriptedPrompter): { level: Level; text: string; buttons: string[] }[] {
  return p.notified.map(({ level, text, buttons }) => ({ level, text, buttons }));
}

/** `worldline.*` settings by their names under `worldline.`; written values change later reads. */
export class FakeSettings implements SettingsPort {
  readonly values: Record<string, unknown>;
  readonly writes: { name: WrittenSetting; value: string; scope: SettingScope }[] = [];

  constructor(values: Record<string, unknown> = {}) {
    this.values = { ...values };
  }

  read(): WorldlineSettings {
    const str = (name: string): string => (typeof this.values[name] === 'string' ? (this.values[name] as string).trim() : '');
    const baseUrl = str('baseUrl') || DEFAULT_BASE_URL;
    const model = str('model');
    const scribeBaseUrl = str('scribe.baseUrl') || baseUrl;
    const memory = { everyTurns: 30, keepTurns: 6, recallCount: 6, embeddingModel: str('memory.embeddingModel'), embeddingBaseUrl: str('memory.embeddingBaseUrl') };
    const provider = this.values['provider'];
    return {
      baseUrl, model, scribeBaseUrl, scribeModel: model, maxToolSteps: 12, temperature: 0.8, memory,
      endpoints: { main: baseUrl, scribe: scribeBaseUrl, embeddings: memory.embeddingBaseUrl || baseUrl },
      proseFollowsBranch: 'ask',
      provider: typeof provider === 'string' ? (provider as WorldlineSettings['provider']) : 'auto',
      thinking: 'auto',
      providerPin: [],
      customHeaders: customHeaders(this.values['customHeaders']).headers,
    };
  }

  raw(name: string): unknown {
    return this.values[name];
  }

  write(name: WrittenSetting, value: string, scope: SettingScope): Promise<void> {
    this.writes.push({ name, value, scope });
    this.values[name] = value;
    return Promise.resolve();
  }
}

export class MemorySecrets implements SecretStore {
  readonly values = new Map<string, string>();
  failing = false;
  get(name: string): Promise<string | undefined> {
    return this.failing ? Promise.reject(new Error('the keychain is locked')) : Promise.resolve(this.values.get(name));
  }
  store(name: string, value: string): Promise<void> {
    this.values.set(name, value);
    return Promise.resolve();
  }
  delete(name: string): Promise<void> {
    this.values.delete(name);
    return Promise.resolve();
  }
}

export class RecordingCommands implements CommandPort {
  readonly ran: { command: string; args: unknown[] }[] = [];
  run(command: string, ...args: unknown[]): Promise<unknown> {
    this.ran.push({ command, args });
    return Promise.resolve(undefined);
  }
}

export class RecordingLog implements FlowLog {
  readonly lines: string[] = [];
  info(m: string): void {
    this.lines.push(`info: ${m}`);
  }
  warn(m: string): void {
    this.lines.push(`warn: ${m}`);
  }
}

/** Lets the notifications nobody awaits (and what their buttons start) run. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

/** All the ports of a flow, over one set of fakes. */
export function fakePorts(answers: Answer[] = [], values: Record<string, unknown> = {}, say: Say = english) {
  const secrets = new MemorySecrets();
  const marked: string[] = [];
  return {
    prompter: new ScriptedPrompter(answers) as ScriptedPrompter,
    say,
    settings: new FakeSettings(values),
    secrets,
    keys: new KeyStore(secrets),
    commands: new RecordingCommands(),
    log: new RecordingLog(),
    marked,
    markAsked: (origin: string) => void marked.push(origin),
  };
}

/** The questions asked, in order: their kind and English title. */
export function asked(p: ScriptedPrompter): string[] {
  return p.asked.map((q) => `${q.kind} ${q.title}`);
}

/** The i-th question, which must be a pick. */
export function pickAt(p: ScriptedPrompter, i: number): Asked & { pick: NonNullable<Asked['pick']> } {
  const q = p.asked[i];
  if (q?.kind !== 'pick' || !q.pick) throw new Error(`question ${i} is not a pick`);
  return q as Asked & { pick: NonNullable<Asked['pick']> };
}

/** The i-th question's options, which must be a line asked for. */
export function askAt(p: ScriptedPrompter, i: number): AskOptions {
  const q = p.asked[i];
  if (q?.kind !== 'ask' || !q.ask) throw new Error(`question ${i} is not an input`);
  return q.ask;
}

/** A pick's items as shown in English: label and description. */
export function shown(q: Asked): [string, string | undefined][] {
  return q.labels.map((l, i) => [l, q.descriptions[i]]);
}
