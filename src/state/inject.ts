// Injection: a block (the scene state or its changes) goes in front of an instruction, the recall
// after the newest one. The newest user message gets its block here; earlier instructions are
// replayed with the block they were sent with (src/agent/prompt.ts, `withBlock`), so every request
// is a byte-identical prefix of the next one and provider prompt caches keep hitting.

export interface MessageLike {
  role: string;
  content?: unknown;
}

const SEPARATOR = '\n\n';

/** An instruction's text as sent with `block` in front of it; without a block, the text alone. */
export function withBlock(block: string, text: string): string {
  return block === '' ? text : block + SEPARATOR + text;
}

/**
 * Returns a new array in which the last `user` message carries `block` before its content.
 * Every other message is the same object as before. String content gets the block prepended;
 * content-part arrays get a text part in front. Without a user message nothing changes.
 */
export function injectState<M extends MessageLike>(messages: readonly M[], block: string): M[] {
  const out = messages.slice();
  if (block === '') return out;
  for (let i = out.length - 1; i >= 0; i--) {
    const msg = out[i];
    if (!msg || msg.role !== 'user') continue;
    const content = msg.content;
    if (Array.isArray(content)) {
      out[i] = { ...msg, content: [{ type: 'text', text: block }, ...content] };
    } else {
      out[i] = { ...msg, content: withBlock(block, typeof content === 'string' ? content : '') };
    }
    break;
  }
  return out;
}

/**
 * Returns a new array in which the last `user` message carries `text` after its content (the
 * recall, which is sent once: at the end, dropping it next turn changes the fewest bytes before).
 * Content-part arrays get a text part at the end. Without a user message nothing changes.
 */
export function appendToNewest<M extends MessageLike>(messages: readonly M[], text: string): M[] {
  const out = messages.slice();
  if (text === '') return out;
  for (let i = out.length - 1; i >= 0; i--) {
    const msg = out[i];
    if (!msg || msg.role !== 'user') continue;
    const content = msg.content;
    if (Array.isArray(content)) {
      out[i] = { ...msg, content: [...content, { type: 'text', text }] };
    } else {
      const own = typeof content === 'string' ? content : '';
      out[i] = { ...msg, content: own === '' ? text : own + SEPARATOR + text };
    }
    break;
  }
  return out;
}
