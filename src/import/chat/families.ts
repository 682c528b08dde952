// The chats of a character's folder grouped into families: a chat with the branches and checkpoints
// made from it (`chat_metadata.main_chat` names the chat a file came from), a branch of a branch
// with its root. Each family joins into one session; unrelated chats stay apart. Links are by file
// name only, so a renamed parent leaves its branches as a family of their own, and a hand-made loop
// (A names B, B names A) is one family rooted at its first file in the folder's order. Pure.

/** A chat's name as `main_chat` names it: the file name without `.jsonl`. */
export function chatName(name: string): string {
  return name.endsWith('.jsonl') ? name.slice(0, -'.jsonl'.length) : name;
}

export interface ChatFamily<T> {
  /** The chat the others came from (no `main_chat`, or one naming a chat not in the folder). */
  readonly root: T;
  /** The root first, then each chat after the one it came from (breadth first, folder order). */
  readonly files: readonly T[];
  /** Links from the root to each file, by position in `files` (0 for the root). */
  readonly depths: readonly number[];
}

type Linked = { readonly name: string; readonly mainChat?: string; readonly isGroup?: boolean };

/** SillyTavern's name part of its old checkpoint names (`bookmarkNameToken`). */
const CHECKPOINT_TOKEN = 'Checkpoint #';

/**
 * The chat a file came from: `main_chat`, else, for a solo chat saved before checkpoints wrote
 * `main_chat`, the part of its name before the last "Checkpoint #", as SillyTavern's own
 * `getMainChatName` (bookmarks.js:82-98) reads it.
 */
export function parentChatName(file: Linked): string | undefined {
  if (file.mainChat !== undefined) return file.mainChat;
  if (file.isGroup) return undefined; // groups had no checkpoints before chat metadata
  const name = chatName(file.name);
  const at = name.lastIndexOf(CHECKPOINT_TOKEN);
  const parent = at < 0 ? '' : name.slice(0, at).trim();
  return parent === '' ? undefined : parent;
}

export function chatFamilies<T extends Linked>(files: readonly T[]): ChatFamily<T>[] {
  const byName = new Map<string, number>();
  files.forEach((f, i) => {
    const name = chatName(f.name);
    if (!byName.has(name)) byName.set(name, i);
  });
  const parent = files.map((f, i) => {
    const up = parentChatName(f);
    const p = up === undefined ? undefined : byName.get(chatName(up));
    return p === i ? undefined : p;
  });
  const children: number[][] = files.map(() => []);
  parent.forEach((p, i) => {
    if (p !== undefined) children[p]?.push(i);
  });

  // Each file's family root: follow the links up, at most one step per file (a loop ends there).
  const rootOf = files.map(() => -1);
  for (let i = 0; i < files.length; i++) {
    if (rootOf[i] !== -1) continue;
    const walked: number[] = [];
    const onWalk = new Set<number>();
    let at = i;
    let root = -1;
    for (;;) {
      if (rootOf[at] !== -1) {
        root = rootOf[at] as number;
        break;
      }
      if (onWalk.has(at)) {
        root = Math.min(...walked.slice(walked.indexOf(at))); // a loop: its first file
        break;
      }
      walked.push(at);
      onWalk.add(at);
      const up = parent[at];
      if (up === undefined) {
        root = at;
        break;
      }
      at = up;
    }
    for (const w of walked) rootOf[w] = root;
  }

  const families: ChatFamily<T>[] = [];
  for (let r = 0; r < files.length; r++) {
    if (rootOf[r] !== r) continue;
    const order: number[] = [r];
    const depths: number[] = [0];
    const seen = new Set<number>([r]);
    for (let k = 0; k < order.length; k++) {
      for (const c of children[order[k] as number] ?? []) {
        if (seen.has(c)) continue; // the loop back to the root
        seen.add(c);
        order.push(c);
        depths.push((depths[k] as number) + 1);
      }
    }
    families.push({ root: files[r] as T, files: order.map((i) => files[i] as T), depths });
  }
  return families;
}
