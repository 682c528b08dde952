// New Session, Switch Session, Rename Session and Restore Session from Backup as the novelist meets
// them: refused while the agent writes, what is asked and with which default, nothing to pick,
// what is said after; and for every project command, what a failure says (the store's words by
// code, else its message). Over the Prompter port; the shell gives the open novel.
import type { Text } from '../common/text';
import type { ProjectLanguage } from '../project/config';
import type { Prompter } from '../protocol/prompter';
import type { SessionLibrary } from './library';
import type { Session } from './session';
import { backupRows, defaultSessionTitle, sessionErrorWords, sessionRows } from './words';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };
const literal = (message: string): Text => ({ message, args: [], literal: true });

/** What the flows need of the open novel (the shell's NovelWorkspace is one). */
export interface SessionNovel {
  readonly language: ProjectLanguage;
  readonly session: Pick<Session, 'header'> | undefined;
  readonly library: Pick<SessionLibrary, 'list' | 'rename' | 'backups' | 'restoreBackup'>;
  /** A new session, made current. */
  create(title: string): Promise<Session>;
  /** That session, made current. */
  open(id: string): Promise<Session>;
  /** The current session, creating a first one when the novel has none. */
  ensureSession(): Promise<Session>;
}

export interface SessionFlowHost<N extends SessionNovel> {
  readonly prompter: Prompter;
  readonly log: { error(message: string): void };
  /** The open novel; undefined without a folder. */
  novel(): N | undefined;
  /** False (the refusal said) while a turn is running: sessions change only when the agent has finished writing. */
  idle(action: Text): boolean;
}

export class SessionFlows<N extends SessionNovel> {
  constructor(private readonly host: SessionFlowHost<N>) {}

  /**
   * A project command on the open novel: without a folder it says so; a failure is logged and
   * said in the store's words (its message when it has none). Undefined for either.
   */
  async run<T>(command: (novel: N) => Promise<T>): Promise<T | undefined> {
    const novel = this.host.novel();
    if (!novel) {
      void this.host.prompter.notify('warning', l10n.t('Open the folder of your novel first (File > Open Folder).'));
      return undefined;
    }
    try {
      return await command(novel);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.host.log.error(message);
      void this.host.prompter.notify('error', sessionErrorWords(err) ?? literal(message));
      return undefined;
    }
  }

  /** New Session: the id of the session made (named by the novelist, else dated). */
  newSession(title?: string): Promise<string | undefined> {
    return this.run(async (novel) => {
      if (!this.host.idle(l10n.t('start a new session'))) return undefined;
      const name = title ?? await this.host.prompter.ask({
        title: l10n.t('New Session'),
        prompt: l10n.t('A name for the new conversation'),
        value: defaultSessionTitle(novel.language),
      });
      if (name === undefined) return undefined;
      const session = await novel.create(name.trim() || defaultSessionTitle(novel.language));
      return session.header.id;
    });
  }

  /** Switch Session: the id of the session now open. */
  switchSession(id?: string): Promise<string | undefined> {
    return this.run(async (novel) => {
      if (!this.host.idle(l10n.t('switch sessions'))) return undefined;
      let target = id;
      if (!target) {
        const rows = sessionRows(await novel.library.list(), novel.session?.header.id);
        if (rows.length === 0) {
          void this.host.prompter.notify('info', l10n.t('This novel has no sessions yet.'));
          return undefined;
        }
        target = await this.host.prompter.pick(rows, { title: l10n.t('Switch Session'), placeHolder: l10n.t('Choose a conversation') });
      }
      if (!target) return undefined;
      await novel.open(target);
      return target;
    });
  }

  /** Rename Session (the current one, made first if there is none): the new title. */
  renameSession(title?: string): Promise<string | undefined> {
    return this.run(async (novel) => {
      const session = await novel.ensureSession();
      const name = title ?? await this.host.prompter.ask({
        title: l10n.t('Rename Session'),
        value: session.title,
        validate: (v) => (v.trim() ? undefined : l10n.t('The name cannot be empty.')),
      });
      if (!name || !name.trim()) return undefined;
      await novel.library.rename(session.header.id, name.trim());
      return name.trim();
    });
  }

  /** Restore Session from Backup: the backup comes back as a new session (nothing overwritten), opened; its id. */
  restoreFromBackup(file?: string): Promise<string | undefined> {
    return this.run(async (novel) => {
      if (!this.host.idle(l10n.t('restore a session'))) return undefined;
      let chosen = file;
      if (!chosen) {
        const backups = await novel.library.backups();
        if (backups.length === 0) {
          void this.host.prompter.notify('info', l10n.t('There are no session backups yet. Worldline keeps them in .worldline/backups/ as you write.'));
          return undefined;
        }
        chosen = await this.host.prompter.pick(backupRows(backups), {
          title: l10n.t('Restore Session from Backup'),
          placeHolder: l10n.t('The backup comes back as a new session; nothing is overwritten.'),
        });
      }
      if (!chosen) return undefined;
      const restored = await novel.library.restoreBackup(chosen);
      await novel.open(restored.header.id);
      void this.host.prompter.notify('info', l10n.t('Restored as the new session "{0}".', restored.title));
      return restored.header.id;
    });
  }
}
