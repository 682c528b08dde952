// One turn's model part: the tool loop. The leaf is on the turn's user entry when it starts. Each
// step rebuilds the request from the branch (so what is sent is what is recorded, plus the blocks
// in front of the instructions, src/agent/sentBlocks.ts, and the turn's recall), streams
// the reply, appends it, runs its tool calls and appends their results. It never throws: every
// failure ends as an assistant entry with finish 'error' or 'aborted' and a matching outcome.
import type { AssistantEntry, ChainEntry, NewChainEntry, ToolCall } from '../session/entries';
import type { Session } from '../session/session';
import { ModelError } from '../model/errors';
import { boundProviderFields, carryProviderFields } from '../model/replay';
import type { StreamingClient, StreamResult, ToolSpec } from '../model/streaming';
import type { Lang } from './manuscript';
import { buildRequest } from './prompt';
import { describeChange, executeTool, type ToolChange, type ToolContext } from './tools';
import type { ExtraTool, LoopOutcome, TurnEvent } from './turnTypes';
import type { ContextMessage } from '../session/entries';
import { instructionsBeforeSummary, type ContextTransform, type RequestBlocks } from './sentBlocks';

export const MAX_STEPS_SETTING = 'worldline.maxToolSteps';

export interface LoopDeps {
  session: Session;
  client: Pick<StreamingClient, 'stream'>;
  toolContext: ToolContext;
  tools: readonly ToolSpec[];
  lang: Lang;
  system: string;
  /** The block in front of the newest user message when `blocks` is not given. */
  stateBlock: string;
  /**
   * The blocks of the instructions after the first `oldTurns` of the replayed context, the newest
   * included (src/agent/sentBlocks.ts). Without it the earlier ones are replayed bare.
   */
  blocks?(messages: readonly ContextMessage[], oldTurns: number): RequestBlocks;
  /** 【相关回忆】 for the turn: after the newest instruction, sent this turn only. */
  recall?: string;
  /**
   * The codex entries the turn names (src/codex/story.ts): their block goes after the state block
   * in front of the newest instruction, this turn only, and their paths on the turn's first
   * assistant entry (`codex`), so what the model saw can be shown.
   */
  codex?: { text: string; paths: readonly string[] };
  /** Model calls per turn at most. */
  maxSteps: number;
  model: string;
  temperature?: number;
  maxTokens?: number;
  signal: AbortSignal;
  emit(e: TurnEvent): void;
  /** Tools beyond the file tools (memory_search): their schemas are offered, their calls routed here. */
  extraTools?: readonly ExtraTool[];
  /** Rewrites the replayed branch before each request (old tool payloads shortened to one line). */
  transformContext?: ContextTransform;
}

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

export function stepLimitMessage(lang: Lang, steps: number): string {
  return t(
    lang,
    `The agent used all ${steps} steps of this turn and was still calling tools, so the turn was stopped. Raise the setting "${MAX_STEPS_SETTING}" or give a smaller instruction, then retry.`,
    `本轮的 ${steps} 步已经用完，助手还在调用工具，所以这一轮停下了。可以调大设置项「${MAX_STEPS_SETTING}」，或把指令拆小一些，然后重试。`,
  );
}

/** The first call whose arguments are not JSON (a JSON string holding JSON counts as JSON). */
export function firstMalformedCall(calls: readonly ToolCall[]): { name: string; why: string } | undefined {
  for (const call of calls) {
    const text = call.arguments.trim();
    if (text === '') continue; // tools without parameters get "" from some models
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'string' && /^\s*[{[]/.test(value)) JSON.parse(value);
    } catch (err) {
      return { name: call.name, why: messageOf(err) };
    }
  }
  return undefined;
}

function malformedCallMessage(lang: Lang, bad: { name: string; why: string }, cutOff: boolean): string {
  return cutOff
    ? t(lang, `The model's reply was cut off in the middle of a ${bad.name} call, so nothing of it was run. Retry asks again (a higher output limit on the endpoint helps).`,
      `模型的回复在调用 ${bad.name} 的中途被截断，这一步什么也没执行。重试会重新请求（调高接口的输出上限会有帮助）。`)
    : t(lang, `The model sent a ${bad.name} call whose arguments are not valid JSON (${bad.why}), so nothing of it was run. Retry asks again.`,
      `模型发来的 ${bad.name} 调用参数不是合法的 JSON（${bad.why}），这一步什么也没执行。重试会重新请求。`);
}

function notRunResult(lang: Lang): string {
  return t(lang, 'Not run: the novelist stopped the turn.', '未执行：作者停止了这一轮。');
}

/** The newest instruction's block: the state (or its changes), then the codex entries. */
function withCodex(stateBlock: string, codex: string): string {
  if (codex === '') return stateBlock;
  return stateBlock === '' ? codex : `${stateBlock}\n\n${codex}`;
}

export async function runToolLoop(deps: LoopDeps): Promise<LoopOutcome> {
  const { session, lang, signal } = deps;
  const changes: ToolChange[] = [];
  const replies: AssistantEntry[] = [];

  let codexRecorded = false;
  const append = async (entry: NewChainEntry): Promise<ChainEntry> => {
    if (entry.type === 'assistant' && !codexRecorded) {
      codexRecorded = true;
      if (deps.codex && deps.codex.paths.length > 0) entry.codex = [...deps.codex.paths];
    }
    const written = await session.append(entry);
    deps.emit({ type: 'entry', entry: written });
    return written;
  };

  /** Records how the turn ended; a failing write here still returns the outcome. */
  const finish = async (
    status: 'error' | 'aborted',
    text: string,
    error: string | undefined,
    retryable: boolean,
  ): Promise<LoopOutcome> => {
    const outcome: LoopOutcome = { status, changes, replies, retryable };
    if (error !== undefined) outcome.error = error;
    try {
      const entry: NewChainEntry = { type: 'assistant', text, model: deps.model, finish: status };
      if (error !== undefined) entry.error = error;
      const written = (await append(entry)) as AssistantEntry;
      replies.push(written);
      outcome.assistantId = written.id;
    } catch (err) {
      outcome.status = 'error';
      outcome.retryable = false;
      outcome.error = `${error ?? t(lang, 'The turn was stopped.', '这一轮已停止。')} ${t(lang, 'It could not be recorded in the session either', '也没能记进会话')}: ${messageOf(err)}`;
    }
    if (outcome.status === 'error') deps.emit({ type: 'error', message: outcome.error ?? '', retryable: outcome.retryable ?? false });
    return outcome;
  };

  try {
    for (let step = 1; ; step++) {
      if (signal.aborted) return await finish('aborted', '', undefined, true);
      const view = session.contextWithSummary();
      // Old turns (before the summary, or past the transform's boundary) go bare and shortened;
      // the rest exactly as they were sent, so the request extends the previous one byte for byte.
      const beforeSummary = instructionsBeforeSummary(session, view);
      const shaped = deps.transformContext ? deps.transformContext(view.messages, { beforeSummary }) : { messages: view.messages, oldTurns: beforeSummary };
      const context = shaped.messages;
      const blocks = deps.blocks?.(context, shaped.oldTurns);
      const request = {
        summaryText: view.summaryText, context, system: deps.system, lang,
        stateBlock: withCodex(blocks ? blocks.newest : deps.stateBlock, deps.codex?.text ?? ''),
        ...(blocks ? { pastBlocks: blocks.past } : {}),
        ...(deps.recall ? { recall: deps.recall } : {}),
      };
      // The provider fields stored on the branch ride along to the client, which replays what its
      // dialect needs (DeepSeek's reasoning_content, Gemini's thought signatures).
      const messages = carryProviderFields(buildRequest(request), context);
      deps.emit({ type: 'phase', phase: 'writing' });
      let partial = '';
      let toolPhase = false;
      let reply: StreamResult;
      try {
        reply = await deps.client.stream(
          { messages, tools: deps.extraTools?.length ? [...deps.tools, ...deps.extraTools.map((x) => x.spec)] : deps.tools, temperature: deps.temperature, maxTokens: deps.maxTokens, model: deps.model, signal },
          (d) => {
            if (d.text !== undefined) {
              partial += d.text;
              deps.emit({ type: 'delta', text: d.text });
            }
            if (d.reasoning !== undefined) deps.emit({ type: 'reasoning', text: d.reasoning });
            if (d.toolCallName !== undefined && !toolPhase) {
              toolPhase = true; // the prose is now streaming into a tool call's arguments
              deps.emit({ type: 'phase', phase: 'tool' });
            }
          },
        );
      } catch (err) {
        // Partial tool calls are never recorded; the partial text is what the novelist saw.
        if (signal.aborted || (err instanceof ModelError && err.kind === 'aborted')) return await finish('aborted', partial, undefined, true);
        // Retry is offered for every model failure (after a 401 the novelist sets the key first).
        return await finish('error', partial, messageOf(err), true);
      }

      const calls: ToolCall[] = reply.toolCalls.map((c) => {
        const call: ToolCall = { id: c.id, name: c.name, arguments: c.arguments };
        const fields = boundProviderFields(c.providerFields);
        if (fields) call.providerFields = fields;
        return call;
      });
      // Arguments that are not JSON at all (a reply cut off mid-call, a broken stream) end the
      // turn: running the rest of a half-formed step could write half a chapter.
      const malformed = firstMalformedCall(calls);
      const limitHit = malformed === undefined && calls.length > 0 && step >= deps.maxSteps;
      const entry: NewChainEntry = {
        type: 'assistant',
        text: reply.text,
        model: reply.model ?? deps.model,
        // The last allowed step still asked for tools, or a call is not JSON: recorded as the
        // error (its calls stay unanswered; later requests answer them "not run": src/agent/requestShape.ts).
        finish: limitHit || malformed ? 'error' : reply.finish === 'length' ? 'length' : 'stop',
      };
      if (calls.length > 0) entry.toolCalls = calls;
      if (reply.usage) {
        const { promptTokens, completionTokens, cachedTokens, reasoningTokens } = reply.usage;
        entry.usage = { promptTokens, completionTokens };
        if (cachedTokens !== undefined) entry.usage.cachedTokens = cachedTokens;
        if (reasoningTokens !== undefined) entry.usage.reasoningTokens = reasoningTokens;
      }
      const providerFields = boundProviderFields(reply.providerFields);
      if (providerFields) entry.providerFields = providerFields;
      if (limitHit) entry.error = stepLimitMessage(lang, deps.maxSteps);
      if (malformed) entry.error = malformedCallMessage(lang, malformed, reply.finish === 'length');
      const written = (await append(entry)) as AssistantEntry;
      replies.push(written);

      if (limitHit || malformed) {
        const message = entry.error as string;
        deps.emit({ type: 'error', message, retryable: true });
        return { status: 'error', assistantId: written.id, error: message, retryable: true, changes, replies };
      }
      if (calls.length === 0) return { status: 'done', assistantId: written.id, changes, replies };

      deps.emit({ type: 'phase', phase: 'tool' });
      for (const call of calls) {
        // Calls not run after a stop are still answered, so the record says what happened.
        if (signal.aborted) {
          await append({ type: 'tool', callId: call.id, name: call.name, result: notRunResult(lang), isError: true });
          continue;
        }
        deps.emit({ type: 'toolStart', name: call.name, args: call.arguments });
        // Well-formed JSON of the wrong shape is the tool's business: it answers with an error
        // that says how to write it, and the model gets another step (bounded by maxSteps).
        const extra = deps.extraTools?.find((x) => x.spec.function.name === call.name);
        const run = extra ? extra.run(call.arguments).then((r) => ({ ...r, change: undefined })) : executeTool(deps.toolContext, call.name, call.arguments);
        const out = await run.catch((err: unknown) => ({
          result: t(lang, `The tool failed unexpectedly: ${messageOf(err)}`, `工具意外出错：${messageOf(err)}`),
          isError: true,
          change: undefined,
        }));
        if (out.change) changes.push(out.change);
        const end: TurnEvent = { type: 'toolEnd', name: call.name, result: out.result, isError: out.isError };
        if (out.change) end.summary = describeChange(out.change, lang);
        deps.emit(end);
        await append({ type: 'tool', callId: call.id, name: call.name, result: out.result, isError: out.isError });
      }
    }
  } catch (err) {
    // A session write failed (closed, read-only, disk full): end the turn, say why.
    return finish('error', '', t(lang, `The turn could not be saved: ${messageOf(err)}`, `这一轮没能保存：${messageOf(err)}`), false);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
