// The story text of a stretch of the branch, as the summary and the archive see it: the
// novelist's instructions, the agent's replies, and the prose the agent wrote through its file
// tools (the prose lives in the tool-call arguments, not in the reply). Tool results are left out:
// they are file reads and confirmations, never new story. Hidden messages are left out too: the
// novelist took them out of the model's view, so memory must not bring them back.
import type { ChainEntry } from '../session/entries';
import type { SourceText, TextView } from './types';

/** Which argument of which tool carries new prose. */
export const PROSE_TOOL_FIELDS: Readonly<Record<string, string>> = {
  append_file: 'content',
  write_file: 'content',
  edit_file: 'new_text',
};

export function storySources(entries: readonly ChainEntry[], view: TextView, proseFields = PROSE_TOOL_FIELDS): SourceText[] {
  const out: SourceText[] = [];
  for (const e of entries) {
    if (view.isHidden(e.id)) continue;
    if (e.type === 'user') {
      push(out, e.id, 'user', view.textOf(e));
    } else if (e.type === 'assistant') {
      push(out, e.id, 'assistant', view.textOf(e));
      for (const call of e.toolCalls ?? []) {
        const field = proseFields[call.name];
        if (field !== undefined) push(out, e.id, 'prose', stringArg(call.arguments, field));
      }
    }
  }
  return out;
}

function push(out: SourceText[], nodeId: string, role: SourceText['role'], text: string): void {
  const trimmed = text.trim();
  if (trimmed !== '') out.push({ nodeId, role, text: trimmed });
}

/** One string field of a JSON arguments object; '' when the arguments are malformed. */
export function stringArg(argsJson: string, field: string): string {
  try {
    let v: unknown = JSON.parse(argsJson);
    if (typeof v === 'string') v = JSON.parse(v); // some models encode the arguments twice
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return '';
    const x = (v as Record<string, unknown>)[field];
    return typeof x === 'string' ? x : '';
  } catch {
    return '';
  }
}

export function sourcesChars(sources: readonly SourceText[]): number {
  let n = 0;
  for (const s of sources) n += s.text.length;
  return n;
}
