// Saves and worldlines (DESIGN.md, "Saves and worldlines"). Plain TypeScript, no vscode.
export type { SaveTree } from './saves';
export { savesOf, findSave, lastSaveOn, latestSaveOnBranch, checkpointAtSave } from './saves';
export type { NewSaveEntry, PlanNewSaveInput } from './plan';
export { planNewSave } from './plan';
export { mainLineName, forkLineName, detachedLineName, defaultSaveName, cleanName, MAX_NAME_LENGTH } from './names';
export type { WorldlineSidecar, WorldlinesFile } from './sidecar-data';
export {
  SIDECAR_VERSION,
  emptySidecar,
  emptyWorldlinesFile,
  sidecarFor,
  withSidecar,
  renameWorldline,
  renameSave,
  deleteSave,
  restoreSave,
  displaySaveName,
  displayWorldlineName,
} from './sidecar-data';
export type { SidecarRead, SidecarStatus, UpdateSidecarOptions } from './sidecar';
export type { AtomicWriteIo } from '../common/atomic-write';
export { SIDECAR_FILE, SidecarError, sidecarPath, readSidecar, writeSidecar, updateSidecar } from './sidecar';
export { parseSidecar, serializeSidecar } from './sidecar-parse';
export type { SaveNode, WorldlineNode, WorldlineView, DeletedSave } from './view';
export { buildWorldlineView } from './view';
export type { ManuscriptFile, ExportManuscriptInput } from './export';
export { exportManuscript, leadingHeadingLevel } from './export';
