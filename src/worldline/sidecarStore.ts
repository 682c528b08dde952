// The sidecar (renames, soft deletes) of the session a window is on, read from disk once and then
// kept: the views ask for it on every change of the tree. Changes go through `updateSidecar`
// (serialized read-modify-write), and what it wrote becomes the kept copy. Problems with the file
// (damaged, newer version, unreadable) are reported through `report`, once per read or update.
import { sidecarFor, type WorldlineSidecar } from './sidecar-data';
import { readSidecar, sidecarPath, updateSidecar, type UpdateSidecarOptions } from './sidecar';

export class SidecarStore {
  private kept: { file: string; sessionId: string; sidecar: WorldlineSidecar } | undefined;

  constructor(
    private readonly report: (problem: string) => void,
    private readonly options: UpdateSidecarOptions = {},
  ) {}

  /** The sidecar of `sessionId` in the novel at `root`; read from disk only when another session (or novel) was kept. */
  async get(root: string, sessionId: string): Promise<WorldlineSidecar> {
    const file = sidecarPath(root);
    if (this.kept?.file === file && this.kept.sessionId === sessionId) return this.kept.sidecar;
    const read = await readSidecar(file);
    if (read.problem) this.report(read.problem);
    const sidecar = sidecarFor(read.data, sessionId);
    this.kept = { file, sessionId, sidecar };
    return sidecar;
  }

  /** Applies `change` to the file and keeps the result. Rejects (SidecarError) when the file must not be overwritten. */
  async update(root: string, sessionId: string, change: (current: WorldlineSidecar) => WorldlineSidecar): Promise<WorldlineSidecar> {
    const file = sidecarPath(root);
    const { sidecar, problem } = await updateSidecar(file, sessionId, change, this.options);
    if (problem) this.report(problem);
    this.kept = { file, sessionId, sidecar };
    return sidecar;
  }
}
