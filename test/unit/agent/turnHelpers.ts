// Fixtures for the turn tests: a real novel folder in a temp dir, a real Session file in it, the
// local model server with one route for the agent and one for the scribe, and a TurnRunner.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeManuscriptFs } from '../../../src/agent/fsNode';
import { createScribeHook } from '../../../src/agent/scribeHook';
import type { ToolContext } from '../../../src/agent/tools';
import { TurnRunner, type TurnRunnerDeps } from '../../../src/agent/turnRunner';
import type { CheckpointInfo, ScribeInfo, TurnEvent, TurnHooks } from '../../../src/agent/turnTypes';
import { createChatClient } from '../../../src/model/chatClient';
import { createStreamingClient, type StreamingClientOptions } from '../../../src/model/streaming';
import type { AssistantEntry, ChainEntry, ToolEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { stateAt } from '../../../src/state/stateAt';
import { bySystemPrompt, startModelServer, type ModelServer, type RecordedMessage, type RecordedRequest, type RouteHandle } from '../../fixtures/modelServer';

export const OPENING = { time: '傍晚', location: '茶馆', characters: ['青梧'] };
export const AGENT_MARK = { zh: '你是作者的合写助手', en: "You are the novelist's co-writer" };
export const SCRIBE_MARK = { zh: '你是场记', en: 'You are the scribe' };

export interface TurnEnv {
  server: ModelServer;
  root: string;
  session: Session;
  runner: TurnRunner;
  /** What the runner was made with (a second runner on the same session: a reopened window). */
  deps: TurnRunnerDeps;
  events: TurnEvent[];
  checkpoints: CheckpointInfo[];
  scribes: ScribeInfo[];
  /** The order hooks ran in: 'checkpoint', 'scribe'. */
  hookLog: string[];
  agent: RouteHandle;
  scribe: RouteHandle;
  agentRequests(): RecordedRequest[];
  read(rel: string): string;
  write(rel: string, text: string): void;
  streamingOptions(over?: Partial<StreamingClientOptions>): StreamingClientOptions;
  close(): Promise<void>;
}

export interface TurnEnvOptions {
  lang?: 'zh' | 'en';
  maxSteps?: number;
  /** 'real': runScribe through createScribeHook; 'record': only records the call; 'none'. */
  scribe?: 'real' | 'record' | 'none';
  hooks?: Partial<TurnHooks>;
  client?: Partial<StreamingClientOptions>;
  deps?: Partial<TurnRunnerDeps>;
  /** Work started before the runner existed (TurnRunner's second argument). */
  pending?: Promise<unknown>;
}

export async function makeTurnEnv(opts: TurnEnvOptions = {}): Promise<TurnEnv> {
  const lang = opts.lang ?? 'zh';
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'wl-turn-')));
  const root = path.join(base, 'novel');
  fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
  fs.mkdirSync(path.join(root, 'chapters'));
  const session = await Session.create(path.join(root, '.worldline', 'sessions', 'feed0001.jsonl'), { id: 'feed0001', title: '雨夜' });
  const server = await startModelServer();
  const scribe = server.route(bySystemPrompt(SCRIBE_MARK[lang]), { text: '{"patch":{}}' }, 'scribe');
  const agent = server.route(bySystemPrompt(AGENT_MARK[lang]), undefined, 'agent');
  const streamingOptions = (over: Partial<StreamingClientOptions> = {}): StreamingClientOptions => ({
    baseURL: server.url,
    apiKey: 'sk-test',
    model: 'test-model',
    retryBaseDelayMs: 5,
    timeoutMs: 5_000,
    ...opts.client,
    ...over,
  });
  const toolContext: ToolContext = {
    fs: new NodeManuscriptFs(root),
    root,
    globs: ['**/*.md', '**/*.txt'],
    getState: () => stateAt(session.path(), OPENING, { lang }).state,
    lang,
  };
  const events: TurnEvent[] = [];
  const checkpoints: CheckpointInfo[] = [];
  const scribes: ScribeInfo[] = [];
  const hookLog: string[] = [];
  const realScribe = createScribeHook({
    session,
    client: createChatClient({ baseURL: server.url, apiKey: 'sk-test', model: 'test-scribe', maxRetries: 0 }),
    model: 'test-scribe',
    opening: OPENING,
    lang,
    hasVariables: false,
  });
  const hooks: TurnHooks = {
    checkpoint: async (info) => {
      hookLog.push('checkpoint');
      checkpoints.push(info);
    },
    ...opts.hooks,
  };
  const mode = opts.scribe ?? 'record';
  if (mode !== 'none' && !opts.hooks?.scribe) {
    hooks.scribe = async (info) => {
      hookLog.push('scribe');
      scribes.push(info);
      return mode === 'real' ? realScribe(info) : undefined;
    };
  }
  const deps: TurnRunnerDeps = {
    session,
    client: createStreamingClient(streamingOptions()),
    toolContext,
    lang,
    style: '冷峻，短句，多写动作少写心理。',
    title: '雨夜',
    maxSteps: opts.maxSteps ?? 8,
    model: 'test-model',
    opening: OPENING,
    hooks,
    onEvent: (e) => events.push(e),
    ...opts.deps,
  };
  const runner = new TurnRunner(deps, opts.pending);
  return {
    server,
    root,
    session,
    runner,
    deps,
    events,
    checkpoints,
    scribes,
    hookLog,
    agent,
    scribe,
    agentRequests: () => server.chatRequests().filter((r) => r.route === 'agent'),
    read: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
    write: (rel, text) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    },
    streamingOptions,
    async close() {
      runner.dispose();
      await session.close();
      await server.close();
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/** The chain entries on the current branch, as compact tuples for assertions. */
export function shape(session: Session): string[] {
  return session.path().map((e: ChainEntry) => {
    switch (e.type) {
      case 'user':
        return `user:${(e as UserEntry).text}`;
      case 'assistant': {
        const a = e as AssistantEntry;
        return `assistant:${a.finish}:${a.text}${a.toolCalls ? `:calls=${a.toolCalls.map((c) => c.name).join(',')}` : ''}`;
      }
      case 'tool':
        return `tool:${(e as ToolEntry).name}:${(e as ToolEntry).isError ? 'error' : 'ok'}`;
      default:
        return e.type;
    }
  });
}

export function textOf(m: RecordedMessage): string {
  return typeof m.content === 'string' ? m.content : '';
}

/** Waits until `cond()` holds (polling), for events that land asynchronously. */
export async function until(cond: () => boolean, ms = 3_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
}
