// Injection: the state block goes in front of the NEWEST user message only. Older messages are
// replayed exactly as sent, so the prompt prefix stays byte-stable and provider caches keep hitting.

export interface MessageLike {
  role: string;
  content?: unknown;
}

const SEPARATOR = '\n\n';

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
      out[i] = { ...msg, content: block + SEPARATOR + (typeof content === 'string' ? content : '') };
    }
    break;
  }
  return out;
}
