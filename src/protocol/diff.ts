// The diff editor as the core names what it shows: a flow says which two documents and under what
// title; the shell makes their URIs (checkpoint:, worldline-state:, the file on disk) and opens it.
import type { Text } from '../common/text';

/** A manuscript file at a checkpoint's commit ('empty': the file did not exist there). */
export interface CheckpointDocument { readonly kind: 'checkpoint'; readonly commit: string; readonly path: string }
/** A manuscript file as it is on disk now: the side the novelist can edit. */
export interface WorkingDocument { readonly kind: 'working'; readonly path: string }
/** The scene state at a save, as YAML (read-only). */
export interface SceneStateDocument { readonly kind: 'sceneState'; readonly entryId: string; readonly name: string }

export type DiffDocument = CheckpointDocument | WorkingDocument | SceneStateDocument;

/** Opens the diff editor, `left` the older side; `preview`: the next preview reuses the tab. */
export type ShowDiff<D extends DiffDocument = DiffDocument> = (left: D, right: D, title: Text, preview: boolean) => PromiseLike<unknown>;
