// The Story's continuity step (DESIGN, "Continuity"): after the scribe, the prose the turn added
// (per chapter) is checked against the state before and after the turn, and the findings go on
// the tree as one `findings` side entry on the turn's state entry, so they follow the branch with
// it. Leaf-guarded like the scribe: the leaf is noted before the side model is asked, and the
// result is dropped when the branch moved meanwhile. Also the verbs on findings: Mark as Intended,
// Check Continuity of This Chapter, and the branch's findings for the views, with an event when
// they change. A failure never fails the turn: it is logged.
import { addedText } from '../agent/proseAdded';
import type { ToolChange } from '../agent/tools';
import { checkContinuity } from '../continuity/check';
import { FINDING_TYPES, type AddedProse, type Finding } from '../continuity/types';
import type { CodexEntry } from '../codex/types';
import { sideChatClient } from '../memory/sideModels';
import type { WorldlineSettings } from '../model/settings';
import { DEFAULT_CODEX_FOLDER, isInCodexFolder } from '../project/codexFolder';
import type { FindingsEntry } from '../session/entries';
import { isStaleLeafError, type Session } from '../session/session';
import { leafGuardFor } from '../state/leafGuard';
import { stateAt } from '../state/stateAt';
import type { SceneState } from '../state/types';
import type { StoryHost } from './host';

/** The side model's cap for one judge call: the verdicts are short JSON, as the scribe's patch is. */
export const JUDGE_MAX_TOKENS = 2048;

/** The findings of one turn on the branch: on its state entry, latest entry per target. */
export interface TurnFindings {
  /** The turn's instruction (undefined for a state entry above every instruction: an import, an edit). */
  readonly turnId: string | undefined;
  readonly stateId: string;
  readonly findings: readonly Finding[];
  readonly intended: readonly string[];
}

/** A finding the views show: not marked as intended, with the state entry it is stored on (none: shown without storing). */
export interface ShownFinding {
  readonly finding: Finding;
  readonly stateId: string | undefined;
}

/** What one check came to. */
export type CheckOutcome =
  /** Findings stored on `stateId` (`findings`: the new ones of this check). */
  | { kind: 'stored'; stateId: string; findings: readonly Finding[]; problems: readonly string[] }
  /** Nothing found (and nothing stored, unless an older list for the chapter had to be cleared). */
  | { kind: 'clean'; problems: readonly string[] }
  /** The branch has no state entry yet: shown without storing. */
  | { kind: 'unstored'; findings: readonly Finding[]; problems: readonly string[] }
  /** The branch moved while the side model worked: the result was dropped. */
  | { kind: 'stale' }
  /** The setting is off, or the turn added no prose: nothing was checked. */
  | { kind: 'skipped' }
  | { kind: 'failed'; message: string };

export interface ContinuityOwner {
  readonly host: StoryHost;
  readonly session: Session;
  /** The codex entries now (for the aliases of roster names). */
  codexEntries(): Promise<readonly CodexEntry[]>;
}

type Listener = () => void;

export class StoryContinuity {
  private readonly listeners = new Set<Listener>();
  private readonly subscription: { dispose(): void };
  private memo: { key: string; value: readonly TurnFindings[] } | undefined;

  constructor(private readonly owner: ContinuityOwner) {
    const { session } = owner;
    // The branch's findings change when the leaf moves to another branch, and when a findings
    // entry is written on a state entry of it (new findings, a mark). An append only extends the
    // branch with entries that have none yet.
    this.subscription = session.onDidChange((change) => {
      if (change.kind === 'navigate') this.fire();
      else if (change.kind === 'side' && change.entry.type === 'findings' && session.isOnPath(change.entry.targetId)) this.fire();
    });
  }

  /** Fired when the branch's findings change: a branch move, new findings, a mark. */
  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  dispose(): void {
    this.subscription.dispose();
    this.listeners.clear();
  }

  /**
   * The findings on the current branch, one record per state entry that has any, root first.
   * Memoized per leaf and entry count; a read walks only the state entries of the path.
   */
  findings(): readonly TurnFindings[] {
    const { session } = this.owner;
    const key = `${session.leafId}:${session.entryCount}`;
    if (this.memo?.key === key) return this.memo.value;
    const view = session.pathView();
    const value = session.sidesOnPath('state', 'findings').map(({ entry, side, position }): TurnFindings => ({
      turnId: view.lastOfType('user', position)?.id,
      stateId: entry.id,
      // Types a newer version knows and this one does not are left out.
      findings: side.findings.filter((f) => (FINDING_TYPES as readonly string[]).includes(f.type)),
      intended: side.intended,
    }));
    this.memo = { key, value };
    return value;
  }

  /** The branch's findings minus those marked as intended, newest turn first. */
  shown(): ShownFinding[] {
    const out: ShownFinding[] = [];
    const turns = this.findings();
    for (let i = turns.length - 1; i >= 0; i--) {
      const turn = turns[i] as TurnFindings;
      const intended = new Set(turn.intended);
      for (const finding of turn.findings) if (!intended.has(finding.id)) out.push({ finding, stateId: turn.stateId });
    }
    return out;
  }

  /** A finding of the branch by id (on `stateId` when given, else the newest turn that has it). */
  find(findingId: string, stateId?: string): { finding: Finding; turn: TurnFindings } | undefined {
    const turns = this.findings();
    for (let i = turns.length - 1; i >= 0; i--) {
      const turn = turns[i] as TurnFindings;
      if (stateId !== undefined && turn.stateId !== stateId) continue;
      const finding = turn.findings.find((f) => f.id === findingId);
      if (finding) return { finding, turn };
    }
    return undefined;
  }

  /**
   * Mark as Intended: a new findings entry for the finding's state entry with its id added to
   * `intended`, so it does not come back on this branch. False when the branch has no such
   * finding, it is marked already, or the session refused the write (read-only: logged).
   */
  async markIntended(findingId: string, stateId?: string): Promise<boolean> {
    const found = this.find(findingId, stateId);
    if (!found) return false;
    const { turn } = found;
    if (turn.intended.includes(findingId)) return false;
    const stored = this.owner.session.sideFor(turn.stateId, 'findings');
    if (!stored) return false;
    try {
      await this.owner.session.appendSide({ type: 'findings', targetId: turn.stateId, findings: stored.findings, intended: [...stored.intended, findingId] });
      return true;
    } catch (err) {
      this.owner.host.log.warn(`continuity: the mark could not be saved: ${errorText(err)}`);
      return false;
    }
  }

  /**
   * After a turn whose scribe appended `stateId`: the prose the turn added per chapter against the
   * state the turn started from and the scribe's. Never rejects; a failure is logged.
   */
  async afterTurn(info: { userEntryId: string; stateId: string; changes: readonly ToolChange[]; signal?: AbortSignal }): Promise<CheckOutcome> {
    const { host, session } = this.owner;
    try {
      const settings = host.settings();
      if (settings.continuityCheck === 'off') return { kind: 'skipped' };
      const added = proseByFile(info.changes, codexFolderOf(host));
      if (added.length === 0) return { kind: 'skipped' };
      const prose = added.map(({ file, text }) => ({ file, text }));
      const startOf = new Map(added.map((p) => [p.file, p.start]));
      const { opening, lang } = host.project().branchOptions;
      const before = stateAt(session.path(info.userEntryId), opening, { lang }).state;
      const after = stateAt(session.path(info.stateId), opening, { lang });
      if (after.entryId !== info.stateId) return { kind: 'skipped' }; // the scribe's state cannot be read back
      const outcome = await this.check({
        prose, before, after: after.state, targetId: info.stateId, settings,
        // A finding's offset is in the prose added; stored, it is where the quote was in the chapter (the views' hint).
        atFile: (f) => (f.offset === undefined ? f : { ...f, offset: f.offset + (startOf.get(f.file) ?? 0) }),
        ...(info.signal ? { signal: info.signal } : {}),
      });
      this.logOutcome('after the turn', outcome);
      return outcome;
    } catch (err) {
      const message = errorText(err);
      host.log.warn(`continuity: the check after the turn failed: ${message}`);
      return { kind: 'failed', message };
    }
  }

  /**
   * Check Continuity of This Chapter (hand-written prose): the whole chapter against the branch's
   * state. Stored on the branch's last state entry (this chapter's earlier findings there are
   * replaced, the marks kept); with no state entry on the branch yet, the findings are returned
   * without storing (there is no turn to hang them on). Never rejects.
   */
  async checkChapter(file: string, text: string, opts: { signal?: AbortSignal } = {}): Promise<CheckOutcome> {
    const { host, session } = this.owner;
    try {
      const { opening, lang } = host.project().branchOptions;
      const at = stateAt(session.path(), opening, { lang });
      const outcome = await this.check({
        prose: text.trim() === '' ? [] : [{ file, text }],
        before: at.state,
        after: at.state,
        targetId: at.entryId,
        replaceFile: file,
        settings: host.settings(),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      this.logOutcome(`of ${file}`, outcome);
      return outcome;
    } catch (err) {
      const message = errorText(err);
      host.log.warn(`continuity: the check of ${file} failed: ${message}`);
      return { kind: 'failed', message };
    }
  }

  /** One check: rules (and the judge, with a side model), leaf guard, one findings entry. */
  private async check(input: {
    prose: readonly AddedProse[];
    before: SceneState;
    after: SceneState;
    /** The state entry to store on; undefined: shown without storing. */
    targetId: string | undefined;
    /** The chapter whose older findings on the target this check replaces (Check This Chapter). */
    replaceFile?: string;
    settings: WorldlineSettings;
    /** The finding as stored (its offset moved from the checked text into the chapter). */
    atFile?: (finding: Finding) => Finding;
    signal?: AbortSignal;
  }): Promise<CheckOutcome> {
    const { session, host } = this.owner;
    if (input.prose.length === 0) return { kind: 'skipped' };
    const lang = host.project().lang;
    const leafBefore = session.leafId;
    const judge = await this.judgeFor(input.settings, input.signal);
    const aliases = aliasesOf(await this.owner.codexEntries().catch(() => []));
    const result = await checkContinuity(
      { prose: input.prose, before: input.before, after: input.after, aliases, lang },
      { ...(judge ? { judge } : {}), ...(input.signal ? { signal: input.signal } : {}) },
    );
    const problems = result.problems;
    const found = input.atFile ? result.findings.map(input.atFile) : result.findings;
    const guard = leafGuardFor(leafBefore, (a, b) => session.isAncestorOrSelf(a, b));
    if (!guard(session.leafId)) return { kind: 'stale' };
    if (input.targetId === undefined) {
      return found.length === 0 ? { kind: 'clean', problems } : { kind: 'unstored', findings: found, problems };
    }
    const stored = session.sideFor(input.targetId, 'findings');
    const kept = stored && input.replaceFile !== undefined ? stored.findings.filter((f) => f.file !== input.replaceFile) : stored?.findings ?? [];
    const merged = mergeFindings(kept, found);
    const unchanged = stored !== undefined && sameFindings(stored.findings, merged);
    // Nothing is written for a clean turn, nor when the list stays as it is.
    if ((stored === undefined && merged.length === 0) || unchanged) {
      return found.length === 0 ? { kind: 'clean', problems } : { kind: 'stored', stateId: input.targetId, findings: found, problems };
    }
    if (session.readOnly) {
      return found.length === 0 ? { kind: 'clean', problems } : { kind: 'unstored', findings: found, problems };
    }
    const entry: Omit<FindingsEntry, 'id' | 'parentId' | 'ts'> = { type: 'findings', targetId: input.targetId, findings: merged, intended: stored?.intended ?? [] };
    try {
      await session.appendSide(entry, { guard });
    } catch (err) {
      if (guard.refused || isStaleLeafError(err)) return { kind: 'stale' };
      throw err;
    }
    return found.length === 0 ? { kind: 'clean', problems } : { kind: 'stored', stateId: input.targetId, findings: found, problems };
  }

  /**
   * The judge: the side model (the scribe's endpoint, model and key, thinking off), as the scribe
   * calls it. Undefined without a side model (no scribe model, which defaults to the main model):
   * then only the rules' high-confidence findings are kept (checkContinuity decides that).
   */
  private async judgeFor(settings: WorldlineSettings, signal: AbortSignal | undefined): Promise<((prompt: { system: string; user: string }) => Promise<string>) | undefined> {
    if (!settings.scribeModel) return undefined;
    const keys = await this.owner.host.keys(settings);
    const client = sideChatClient(settings, { scribe: keys.scribe });
    return async (prompt) => {
      const reply = await client.complete({
        system: prompt.system,
        messages: [{ role: 'user', content: prompt.user }],
        model: settings.scribeModel,
        maxTokens: JUDGE_MAX_TOKENS,
        ...(signal ? { signal } : {}),
      });
      return reply.text;
    };
  }

  private logOutcome(what: string, outcome: CheckOutcome): void {
    const log = this.owner.host.log;
    if ('problems' in outcome) for (const p of outcome.problems) log.warn(`continuity: ${p}`);
    if (outcome.kind === 'stale') log.info(`continuity: the branch moved during the check ${what}; its findings were dropped`);
    else if (outcome.kind === 'stored' || outcome.kind === 'unstored') log.info(`continuity: ${outcome.findings.length} finding(s) ${what}${outcome.kind === 'unstored' ? ' (not stored: no scene state on this branch yet)' : ''}`);
  }

  private fire(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (err) {
        this.owner.host.log.warn(`continuity: a listener failed: ${errorText(err)}`);
      }
    }
  }
}

/**
 * The prose a turn added, per chapter, in the order the files were first changed: the text before
 * the turn's first change against the text after its last (src/agent/proseAdded.ts), in whole
 * lines. Codex files are lore, not prose: left out.
 */
export function proseByFile(changes: readonly ToolChange[], codexFolder: string = DEFAULT_CODEX_FOLDER): (AddedProse & { start: number })[] {
  const byFile = new Map<string, { before: string | undefined; after: string }>();
  for (const c of changes) {
    const seen = byFile.get(c.path);
    if (seen) seen.after = c.after;
    else byFile.set(c.path, { before: c.before, after: c.after });
  }
  const out: (AddedProse & { start: number })[] = [];
  for (const [file, { before, after }] of byFile) {
    if (isInCodexFolder(codexFolder, file)) continue;
    const text = addedText(before, after);
    if (text.trim() === '') continue;
    // The added text starts at the line of the first difference: the last place it starts at or before it.
    out.push({ file, text, start: Math.max(0, after.lastIndexOf(text, commonPrefix(before ?? '', after))) });
  }
  return out;
}

function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Roster name → its other names: a codex entry's name and its primary keys (the name itself left out). */
export function aliasesOf(entries: readonly CodexEntry[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of entries) {
    if (e.disabled || (e.kind !== 'character' && e.kind !== 'item' && e.kind !== 'place')) continue;
    const keys = e.keys.filter((k) => k.trim() !== '' && k !== e.name);
    if (keys.length === 0) continue;
    out.set(e.name, [...new Set([...(out.get(e.name) ?? []), ...keys])]);
  }
  return out;
}

/** `kept` then `added`, one finding per file and id (a finding found again replaces the older one). */
function mergeFindings(kept: readonly Finding[], added: readonly Finding[]): Finding[] {
  const keyOf = (f: Finding) => `${f.file}\u0000${f.id}`;
  const fresh = new Set(added.map(keyOf));
  return [...kept.filter((f) => !fresh.has(keyOf(f))), ...added];
}

function sameFindings(a: readonly Finding[], b: readonly Finding[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function codexFolderOf(host: StoryHost): string {
  return host.project().config.codex ?? DEFAULT_CODEX_FOLDER;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
