// A small book for the story tests: a real folder with a chapter, a real checkpoint store (git),
// a real session file, and the entries each verb writes, in the order the extension writes them
// (instruction → reply → checkpoint → scene state [→ save]). The restores do what the shell does:
// ask the core where to land, restore that checkpoint, move the leaf there.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RestoreResult, ShadowRepo, ShadowRepoOptions } from '../../../src/checkpoints';
import { NodeManuscriptFs } from '../../../src/agent/fsNode';
import type { RequestKeys } from '../../../src/model/keys';
import type { WorldlineSettings } from '../../../src/model/settings';
import { defaultConfig } from '../../../src/project/config';
import type { ChainEntry, CheckpointEntry, SaveEntry, StateEntry, UserEntry } from '../../../src/session/entries';
import { Session } from '../../../src/session/session';
import { openingState } from '../../../src/state/opening';
import type { SceneState } from '../../../src/state/types';
import {
  branchOf, proseAndChatLanding, saveLanding, type Branch, type BranchOptions,
  Story, type DirtyChoice, type FollowSetting, type StoryEvent, type StoryHost, type StoryProject,
} from '../../../src/story';
import type { ProgressKind } from '../../../src/story/host';
import type { ManuscriptChanges } from '../../../src/project/manuscriptChanges';
import { startModelServer, type ModelServer } from '../../fixtures/modelServer';
import { planNewSave } from '../../../src/worldline/plan';
import { cleanupTmp, ok, openRepo, tmpDir } from '../checkpoints/helpers';

export const CHAPTER = 'chapters/01.md';

/** A valid scene state at in-story time `time` (the schema checks every stored state). */
export function sceneAt(time: string): SceneState {
  return openingState({ time, location: '客栈' });
}

export const OPTIONS: BranchOptions = { opening: sceneAt('开场'), lang: 'zh' };

export interface TurnEntries {
  user: UserEntry;
  checkpoint: CheckpointEntry;
  state?: StateEntry;
}

/** How a test book's store is opened: with the window's change feed (the dirty set), and counting git processes. */
export interface BookOptions {
  feed?: ManuscriptChanges;
  onSpawn?: (args: readonly string[]) => void;
  /** Chapters besides chapters/01.md (chapters/NN.md). */
  chapters?: number;
  /** Told after each restore or undo that changed files (the status bar's hook). */
  onRestored?: ShadowRepoOptions['onRestored'];
}

export class Book {
  private constructor(
    readonly root: string,
    readonly repo: ShadowRepo,
    readonly session: Session,
    /** The change feed the store stages from, when the book was opened with one. */
    readonly feed: ManuscriptChanges | undefined,
  ) {}

  static async open(title = '雨夜', opts: BookOptions = {}): Promise<Book> {
    const root = tmpDir('wl-story-');
    fs.mkdirSync(path.join(root, 'chapters'), { recursive: true });
    fs.writeFileSync(path.join(root, CHAPTER), '# 第一章\n');
    for (let i = 2; i <= (opts.chapters ?? 0) + 1; i++) fs.writeFileSync(path.join(root, 'chapters', `${String(i).padStart(2, '0')}.md`), `# 第${i}章\n`);
    fs.mkdirSync(path.join(root, '.worldline', 'sessions'), { recursive: true });
    const repo = await openRepo(root, { ...(opts.feed ? { changes: opts.feed, idleWalkMs: 0 } : {}), ...(opts.onSpawn ? { onSpawn: opts.onSpawn } : {}), ...(opts.onRestored ? { onRestored: opts.onRestored } : {}) });
    const session = await Session.create(path.join(root, '.worldline', 'sessions', 's1.jsonl'), { id: 's1', title });
    return new Book(root, repo, session, opts.feed);
  }

  get prose(): string {
    return fs.readFileSync(path.join(this.root, CHAPTER), 'utf8');
  }

  /** The novelist (or the agent's tool) adds to the chapter. */
  write(text: string): void {
    fs.appendFileSync(path.join(this.root, CHAPTER), text);
  }

  branch(leafId?: string | null): Branch {
    return branchOf(this.session, OPTIONS, leafId === undefined ? this.session.leafId : leafId);
  }

  /** One agent turn: the instruction, the reply writing `prose`, the checkpoint, the scribe's state (unless `scribe: false`). */
  async turn(instruction: string, prose: string, opts: { time?: string; scribe?: boolean } = {}): Promise<TurnEntries> {
    const user = (await this.session.append({ type: 'user', text: instruction })) as UserEntry;
    this.write(prose);
    await this.session.append({ type: 'assistant', text: '写好了。', model: 'test-model', finish: 'stop' });
    const checkpoint = await this.checkpoint(user.id, false);
    if (!checkpoint) throw new Error('a turn always has a checkpoint');
    if (opts.scribe === false) return { user, checkpoint };
    const state = (await this.session.append({ type: 'state', state: sceneAt(opts.time ?? instruction), by: 'scribe', warnings: [] })) as StateEntry;
    return { user, checkpoint, state };
  }

  /** A checkpoint of the manuscript as it is (`onlyIfChanged`: the pin before a send or a save). */
  async checkpoint(turnId: string, onlyIfChanged: boolean): Promise<CheckpointEntry | undefined> {
    const previous = this.session.lastOnPath('checkpoint')?.commit;
    const result = onlyIfChanged && previous !== undefined
      ? await this.repo.checkpointIfChanged(turnId, this.session.header.id, previous)
      : await this.repo.checkpoint(turnId, this.session.header.id);
    if (result === null) return undefined;
    const made = ok(result);
    return (await this.session.append({ type: 'checkpoint', commit: made.commit, ref: made.ref, changed: made.changed })) as CheckpointEntry;
  }

  /** Save Point: the prose pinned when it changed, then the save as planNewSave says. */
  async savePoint(name: string): Promise<{ save: SaveEntry; pinned: CheckpointEntry | undefined }> {
    const pinned = await this.checkpoint(`save-${this.session.entryCount}`, true);
    const save = (await this.session.append(planNewSave({ name, lang: 'zh', tree: this.session }))) as SaveEntry;
    return { save, pinned };
  }

  /** Restore Prose and Chat as the shell does it. */
  async restoreProseAndChat(checkpointId: string): Promise<{ written: string[]; leafId: string }> {
    const landing = proseAndChatLanding(this.branch(), checkpointId);
    if (!landing?.checkpoint) throw new Error(`${checkpointId} is not a checkpoint`);
    const result = await this.repo.restore(landing.checkpoint.commit, { undoable: true });
    await this.session.navigate(landing.leafId);
    return { written: result.written, leafId: landing.leafId };
  }

  /** Load Save as the shell does it. */
  async loadSave(saveEntryId: string): Promise<void> {
    const landing = saveLanding(this.branch(), saveEntryId);
    if (!landing) throw new Error(`${saveEntryId} is not a save`);
    if (landing.checkpoint) await this.repo.restore(landing.checkpoint.commit, { undoable: true });
    await this.session.navigate(landing.leafId);
  }

  entry(id: string): ChainEntry {
    return this.session.get(id) as ChainEntry;
  }

  async close(): Promise<void> {
    this.repo.close();
    await this.session.close();
  }
}

/** The settings of a test: the model server as every endpoint, the follow setting as the test says. */
export function testSettings(url: string, follow: FollowSetting): WorldlineSettings {
  return {
    baseUrl: url, model: 'test-model', scribeBaseUrl: url, scribeModel: 'test-scribe', maxToolSteps: 6, temperature: 0.5,
    memory: { everyTurns: 30, keepTurns: 6, recallCount: 6, embeddingModel: '', embeddingBaseUrl: '' },
    endpoints: { main: url, scribe: url, embeddings: url },
    proseFollowsBranch: follow,
  };
}

/** A StoryHost that records what the Story reports and answers its questions as a test says. */
export class FakeHost implements StoryHost {
  readonly events: StoryEvent[] = [];
  readonly logged: string[] = [];
  setting: FollowSetting = 'ask';
  /** Unsaved editors: path → text not yet on disk. */
  readonly unsaved = new Map<string, string>();
  dirtyAnswer: DirtyChoice = 'save';
  dirtyAsked = 0;
  followAsked = 0;
  answerFollow: (changed: number) => Promise<boolean> = () => Promise.resolve(true);
  /** The work shown with progress, by kind, in order. */
  readonly progressKinds: ProgressKind[] = [];
  /** Set when the book's store stages from a feed: the Story reports to it. */
  readonly changes: ManuscriptChanges | undefined;
  readonly log = {
    info: (m: string) => void this.logged.push(m),
    warn: (m: string) => void this.logged.push(m),
    error: (m: string) => void this.logged.push(m),
  };
  private readonly config = { ...defaultConfig(), title: '雨夜', language: 'zh' as const, opening: { time: '开场', location: '客栈', characters: [] } };

  constructor(private readonly book: Book, readonly server: ModelServer) {
    this.changes = book.feed;
  }

  project(): StoryProject {
    return { root: this.book.root, config: this.config, lang: 'zh', branchOptions: OPTIONS };
  }
  settings(): WorldlineSettings { return testSettings(this.server.url, this.setting); }
  keys(): Promise<RequestKeys> { return Promise.resolve({ main: '', scribe: '', embeddings: '', withheld: [] }); }
  manuscriptFs() { return new NodeManuscriptFs(this.book.root); }
  store() { return Promise.resolve(this.book.repo); }
  progress<T>(work: () => Promise<T>, kind: ProgressKind = 'summary'): Promise<T> {
    this.progressKinds.push(kind);
    return work();
  }
  async saveUnsavedOrCancel(): Promise<DirtyChoice> {
    if (this.unsaved.size === 0) return 'save';
    this.dirtyAsked++;
    if (this.dirtyAnswer === 'cancel') return 'cancel';
    await this.saveUnsavedToDisk();
    return 'save';
  }
  saveUnsavedToDisk(): Promise<void> {
    for (const [rel, text] of this.unsaved) fs.writeFileSync(path.join(this.book.root, rel), text);
    // As the shell does: a file it saved is told to the feed at once.
    this.changes?.changed([...this.unsaved.keys()]);
    this.unsaved.clear();
    return Promise.resolve();
  }
  askFollow(changed: number): Promise<boolean> {
    this.followAsked++;
    return this.answerFollow(changed);
  }
  /** The later-turn counts each regenerate asked about, in order. */
  readonly leaveAsked: number[] = [];
  answerLeave = true;
  confirmLeaveTurns(turns: number): Promise<boolean> {
    this.leaveAsked.push(turns);
    return Promise.resolve(this.answerLeave);
  }
  settle(_result: RestoreResult): Promise<void> { return Promise.resolve(); }
  report(event: StoryEvent): void {
    // The views' redraws are not what the tests check.
    if (event.kind !== 'live' && event.kind !== 'scribe') this.events.push(event);
  }

  kinds(): string[] { return this.events.map((e) => e.kind); }
}

/** One test's book, recording host and Story (over a model server), as the extension wires them; `close()` after. */
export interface StoryFixture {
  book: Book;
  host: FakeHost;
  story: Story;
  server: ModelServer;
  /** Every "prose follows the branch" the session's moves started so far, settled. */
  settled(): Promise<void>;
  /** A turn that is writing (its model holds the reply) until `release()` stops it. */
  holdTurn(): Promise<{ release(): Promise<void> }>;
  close(): Promise<void>;
}

export async function openStoryFixture(setting: FollowSetting = 'ask', bookOptions: BookOptions = {}): Promise<StoryFixture> {
  const book = await Book.open(undefined, bookOptions);
  const server = await startModelServer();
  const host = new FakeHost(book, server);
  host.setting = setting;
  const story = new Story(host, book.session);
  return {
    book, host, story, server,
    settled: () => story.idle(),
    holdTurn: async () => {
      server.enqueue({ text: '……', delayMs: 60_000 });
      const asked = server.chatRequests().length;
      const turn = story.send('慢慢写。');
      // Held once the model has the request: a stop before that would leave the slow reply queued.
      while (server.chatRequests().length === asked) await new Promise((r) => setTimeout(r, 5));
      return {
        release: async () => {
          story.stop();
          await turn;
        },
      };
    },
    close: async () => {
      // Prose still following a move (branch here, a variant) settles before the store closes
      // under it; a test that failed half-way is not waited for long.
      await Promise.race([story.idle().catch(() => undefined), new Promise((r) => setTimeout(r, 5000).unref())]);
      story.dispose();
      await book.close();
      await server.close();
      cleanupTmp();
    },
  };
}
