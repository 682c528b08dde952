// The model's context of the kept path from one position on (the active summary's first uncovered
// entry), kept and extended as the path grows: the same messages `buildContext` gives for that
// part of the path, folded one entry at a time. An edit replaces just its message; a hide, a cut
// of the path or another start builds the part again. The array it returns is never changed
// afterwards (copy-on-write).

import type { ChainEntry, ContextMessage } from './entries';
import { assistantMessage, type TextSource } from './context';
import type { KeptPath } from './keptPath';

export class KeptContext {
  private from = 0;
  private upto = 0;
  private generation = -1;
  private messages: ContextMessage[] = [];
  private shared = false;
  /** Where each entry's message is in `messages`. */
  private readonly at = new Map<string, number>();
  /** Call id → assistants with that call still open, oldest first (as `buildContext` pairs them). */
  private readonly open = new Map<string, string[]>();
  private readonly ownerOf = new Map<string, string>();
  private readonly answers = new Map<string, Map<string, string>>();
  private stale = true;
  /** Builds of the part from its start (benches count them). */
  builds = 0;

  constructor(private readonly source: TextSource) {}

  get start(): number {
    return this.from;
  }

  /** The messages of the synced kept path from `from` to its end. */
  read(path: KeptPath, from: number): readonly ContextMessage[] {
    if (this.stale || from !== this.from || path.generation !== this.generation || this.upto > path.length) this.reset(path, from);
    for (; this.upto < path.length; this.upto++) this.fold(path, path.at(this.upto) as ChainEntry);
    this.shared = true;
    return this.messages;
  }

  /** An edit of `id` (written just now): its message, if it has one here, takes the new text. */
  edited(path: KeptPath, id: string): void {
    const entry = this.entryInRange(path, id);
    if (!entry) return;
    const index = this.at.get(id);
    if (entry.type === 'assistant') {
      const message = assistantMessage(entry, this.source.textOf(entry), this.answers.get(id), this.source);
      if ((index === undefined) !== (message === undefined)) this.stale = true; // it appears or goes: build again
      else if (index !== undefined && message) this.put(index, message);
      return;
    }
    if (index === undefined) return;
    const old = this.messages[index] as ContextMessage;
    this.put(index, { ...old, text: this.source.textOf(entry) });
  }

  /** A hide or unhide of `id`: messages here may come or go, and calls with them. */
  hidden(path: KeptPath, id: string): void {
    if (this.entryInRange(path, id)) this.stale = true;
  }

  // ------------------------------------------------------------------------------------------

  private entryInRange(path: KeptPath, id: string): ChainEntry | undefined {
    if (this.stale || path.generation !== this.generation) return undefined; // built again when read
    const at = path.livePosition(id);
    if (at === undefined || at < this.from || at >= this.upto) return undefined;
    return path.at(at);
  }

  private reset(path: KeptPath, from: number): void {
    this.builds++;
    this.from = from;
    this.upto = Math.min(from, path.length);
    this.generation = path.generation;
    this.messages = [];
    this.shared = false;
    this.at.clear();
    this.open.clear();
    this.ownerOf.clear();
    this.answers.clear();
    this.stale = false;
  }

  /** One entry of `buildContext`, in path order. */
  private fold(path: KeptPath, e: ChainEntry): void {
    const source = this.source;
    if (e.type === 'assistant') {
      for (const call of e.toolCalls ?? []) {
        const waiting = this.open.get(call.id) ?? [];
        if (!waiting.includes(e.id)) waiting.push(e.id);
        this.open.set(call.id, waiting);
      }
    } else if (e.type === 'tool') {
      const owner = this.open.get(e.callId)?.pop(); // the nearest earlier open call
      if (owner !== undefined) {
        this.ownerOf.set(e.id, owner);
        const mine = this.answers.get(owner) ?? new Map<string, string>();
        mine.set(e.callId, e.id);
        this.answers.set(owner, mine);
        // A hidden result takes its call out of the reply already folded.
        if (source.isHidden(e.id)) this.refold(path, owner);
      }
    }
    if (source.isHidden(e.id)) return;
    if (e.type === 'user') {
      this.add({ entryId: e.id, role: 'user', text: source.textOf(e) });
    } else if (e.type === 'assistant') {
      const message = assistantMessage(e, source.textOf(e), this.answers.get(e.id), source);
      if (message) this.add(message);
    } else if (e.type === 'tool') {
      const owner = this.ownerOf.get(e.id);
      if (owner === undefined || source.isHidden(owner)) return;
      this.add({ entryId: e.id, role: 'tool', text: source.textOf(e), callId: e.callId, name: e.name });
    }
  }

  /** The reply `assistantId` again, with what its answers now say. */
  private refold(path: KeptPath, assistantId: string): void {
    const index = this.at.get(assistantId);
    const entry = path.at(path.livePosition(assistantId) ?? -1);
    if (index === undefined || entry?.type !== 'assistant') return;
    const message = assistantMessage(entry, this.source.textOf(entry), this.answers.get(assistantId), this.source);
    if (message) {
      this.put(index, message);
      return;
    }
    this.own();
    this.messages.splice(index, 1);
    this.at.delete(assistantId);
    for (let i = index; i < this.messages.length; i++) this.at.set((this.messages[i] as ContextMessage).entryId, i);
  }

  private add(message: ContextMessage): void {
    this.own();
    this.at.set(message.entryId, this.messages.length);
    this.messages.push(message);
  }

  private put(index: number, message: ContextMessage): void {
    this.own();
    this.messages[index] = message;
  }

  /** Copy-on-write: the array handed out stays as it was. */
  private own(): void {
    if (!this.shared) return;
    this.messages = this.messages.slice();
    this.shared = false;
  }
}
