// Which session a window is on, and how one becomes current. Plain TypeScript: the shell passes
// small event ports (its own event emitters, warnings and log) and words what it shows.
//
// The rules:
//  - restoring opens the remembered session, else the newest one that is not too large to open,
//    and never creates a file (a novel without sessions stays without them);
//  - adopting a session closes the previous one, listens to the new one exactly once (opening the
//    session already open returns the same object: a second listener would fire every
//    change twice), and remembers it as current unless the window is read-only. (Where the leaf
//    moves, the session's Story listens itself: prose follows the branch.)
import * as path from 'node:path';
import type { LockOwner, SessionLibrary } from './library';
import type { LoadReport, Session } from './session';

export interface CurrentSessionEvents {
  /** Another session became current. */
  sessionChanged(session: Session): void;
  /** After every append, side entry or navigation in the current session. */
  treeChanged(session: Session): void;
  /** A session was opened from its file, with what was found there (the shell warns of damage). */
  loaded(session: Session, report: LoadReport): void;
  /** The first read-only session of this window: another window holds the novel's lock. */
  readOnly(owner: LockOwner | undefined): void;
  info(message: string): void;
  warn(message: string): void;
}

export class CurrentSession {
  private current: Session | undefined;
  private listener: { dispose(): void } | undefined;
  private warnedReadOnly = false;

  constructor(
    private readonly library: SessionLibrary,
    private readonly events: CurrentSessionEvents,
  ) {}

  get session(): Session | undefined {
    return this.current;
  }

  /** Opens the remembered session, else the newest that can open; undefined when there is none. Never creates files. */
  async restore(): Promise<Session | undefined> {
    const id = await this.library.current();
    // A session over the size limits cannot open; the window starts on the newest one that can
    // (the big file is kept, and Switch Session says why it will not open).
    const list = (await this.library.list()).filter((s) => !s.tooLarge);
    const pick = list.find((s) => s.id === id) ?? list.sort((a, b) => b.modified - a.modified)[0];
    return pick ? this.open(pick.id) : undefined;
  }

  /** The current session, else the restored one, else a new one titled `title`. */
  async ensure(title: string): Promise<Session> {
    if (this.current) return this.current;
    const restored = await this.restore();
    return restored ?? this.create(title);
  }

  async create(title: string): Promise<Session> {
    const session = await this.library.create(title);
    await this.adopt(session);
    return session;
  }

  async open(id: string): Promise<Session> {
    const { session, report } = await this.library.open(id);
    const name = path.basename(session.file);
    for (const w of report.warnings) this.events.warn(`${name}: ${w}`);
    for (const c of report.corruptLines) this.events.warn(`${name}:${c.line}: ${c.error}`);
    this.events.loaded(session, report);
    await this.adopt(session);
    return session;
  }

  /** Stops listening and closes the current session (the library stays open). */
  async close(): Promise<void> {
    this.listener?.dispose();
    this.listener = undefined;
    const session = this.current;
    this.current = undefined;
    await session?.close();
  }

  private async adopt(session: Session): Promise<void> {
    this.listener?.dispose();
    if (this.current && this.current !== session) await this.current.close();
    this.current = session;
    this.listener = session.onDidChange(() => this.events.treeChanged(session));
    if (!session.readOnly) await this.library.setCurrent(session.header.id);
    if (session.readOnly && !this.warnedReadOnly) {
      this.warnedReadOnly = true;
      this.events.readOnly(await this.library.lockOwner());
    }
    this.events.info(`session ${session.header.id} "${session.title}" opened${session.readOnly ? ' read-only' : ''}`);
    this.events.sessionChanged(session);
  }
}
