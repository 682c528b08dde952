// The saves of the session a window is on, for the shell's commands and views: the sidecar of that
// session (kept by a SidecarStore), the worldline view built from the tree and it, changes to the
// sidecar, a save by id, and the rows a save picker offers. Nothing open: an empty sidecar, no view.
import type { SaveEntry } from '../session/entries';
import { findSave, type SaveTree } from './saves';
import { emptySidecar, type WorldlineSidecar } from './sidecar-data';
import type { UpdateSidecarOptions } from './sidecar';
import { SidecarStore } from './sidecarStore';
import { buildWorldlineView, type SaveNode, type WorldlineView } from './view';

/** What is open: the novel's folder and its session (a `Session` satisfies this). */
export interface OpenSaves {
  root: string;
  session: SaveTree & { readonly header: { readonly id: string }; readonly leafId: string | null };
}

export class SessionSaves {
  private readonly sidecars: SidecarStore;

  /** @param report problems with .worldline/worldlines.json (damaged, newer version), once per read or update */
  constructor(private readonly open: () => OpenSaves | undefined, report: (problem: string) => void, options?: UpdateSidecarOptions) {
    this.sidecars = new SidecarStore(report, options);
  }

  /** The open session's sidecar (renames, soft deletes); empty when nothing is open. */
  async sidecar(): Promise<WorldlineSidecar> {
    const at = this.open();
    return at ? this.sidecars.get(at.root, at.session.header.id) : emptySidecar();
  }

  /** The worldlines as both views show them, at the session's leaf. */
  async view(): Promise<WorldlineView | undefined> {
    const at = this.open();
    if (!at) return undefined;
    return buildWorldlineView(at.session, await this.sidecars.get(at.root, at.session.header.id), at.session.leafId);
  }

  /** Applies `update` to the sidecar on disk; false when nothing is open. Rejects (SidecarError) when the file must not be overwritten. */
  async change(update: (s: WorldlineSidecar) => WorldlineSidecar): Promise<boolean> {
    const at = this.open();
    if (!at) return false;
    await this.sidecars.update(at.root, at.session.header.id, update);
    return true;
  }

  /** The save entry with this saveId in the open session. */
  find(saveId: string | undefined): SaveEntry | undefined {
    const at = this.open();
    return at && saveId ? findSave(at.session, saveId) : undefined;
  }
}

/** The view with no worldline: what the graph shows with no session open. */
export function emptyWorldlineView(): WorldlineView {
  return { worldlines: [], current: { storyAfterLastSave: false }, deleted: [] };
}

export interface SaveRow {
  /** The save's name, "you are here" marked with the location icon. */
  label: string;
  /** Its worldline's name. */
  description: string;
  /** When it was written, in the window's locale. */
  detail: string;
  save: SaveNode;
}

/** The rows of a save picker: every visible save, line by line in write order, but `exclude`. */
export function saveRows(view: WorldlineView | undefined, exclude?: string): SaveRow[] {
  return (view?.worldlines ?? []).flatMap((line) => line.saves
    .filter((s) => s.saveId !== exclude)
    .map((s) => ({ label: `${s.isCurrent ? '$(location) ' : ''}${s.name}`, description: line.name, detail: new Date(s.ts).toLocaleString(), save: s })));
}
