// The chat-completions wire shapes Worldline builds (what goes into `messages` and `tools`), kept
// free of the `openai` package's own types. `providerFields` on an assistant message and on a tool
// call is NOT wire: it carries what the provider sent with that message (session entries'
// ProviderFields) to the client's serialisation, which replays the fields the dialect names and
// never sends the carrier itself.
import type { ProviderFields } from '../session/entries';

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  providerFields?: ProviderFields;
}

export type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[]; providerFields?: ProviderFields }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A function tool in OpenAI's format; `src/agent/tools.ts`'s ToolSchema fits it. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: unknown };
}
