// What the Chat page shows, computed from plain inputs: the Story's branch as messages, whether
// the agent is busy and in which phase, the title, and how the model is named. The shell gathers
// the inputs (the open Story, the session, settings) and posts the result; the words are English
// keys marked for the localisation test and translated by the shell's `say`.
import { recordedToolLines, type TranscriptMessage } from '../agent/transcript';
import type { Say, Text } from '../common/text';
import { isDemoModel } from '../model/models';
import { usageTotals, type Pricing, type UsageTotals } from '../model/usage';
import type { ChainEntry, Entry } from '../session/entries';
import { sessionUsageText, usageText } from './usageLine';
import type { ChatCommand, ChatMessage, ChatModel, ChatStream, ChatToolLine, ChatUsage, FromChatPage, Notice, SetupStep, ToChatPage } from './chat';

// Marks a key for translation; the shell's vscode.l10n.t does the translating.
const l10n = { t: (message: string, ...args: (string | number)[]): Text => ({ message, args }) };

/** What the Chat needs of the open session's Story (src/story/story.ts satisfies it). */
export interface ChatStory {
  readonly busy: boolean;
  readonly phase: ChatModel['phase'];
  readonly canRetry: boolean;
  readonly stream?: { readonly text: string; readonly tools: readonly ChatToolLine[]; readonly reasoning?: string; readonly since?: number } | undefined;
  /** The instruction waiting for the scribe (src/story/story.ts `pending`). */
  readonly pending?: { readonly text: string } | undefined;
  /** The checkpoint commits the store no longer has (src/story/story.ts `lostCheckpoints`). */
  readonly lostCheckpoints?: ReadonlySet<string>;
  branch(): ChatBranch;
}

/** What the Chat reads of a Branch (src/story/branch.ts). */
export interface ChatBranch {
  readonly transcript: readonly TranscriptMessage[];
  readonly path: readonly ChainEntry[];
  /** An entry of the session by id (a reply's usage is summed over its entries). */
  entry(id: string): ChainEntry | undefined;
}

export interface ChatInputs {
  story: ChatStory | undefined;
  session: { readonly title: string; readonly readOnly: boolean; entries?(): Iterable<Entry> } | undefined;
  /** The novel's title from worldline.yaml (maybe empty); undefined when no novel is open. */
  novelTitle: string | undefined;
  /** The `worldline.model` setting (empty: none chosen). */
  model: string;
  notice?: Notice;
  /** What the first-run steps depend on; without it no step is shown. */
  setup?: SetupInputs;
  /** The prices of the endpoint's models (`pricingOf(dialect)`), for each reply's cost; without it no cost is shown. */
  pricing?: Pricing;
}

/** Plain facts the shell gathers for the first-run steps. */
export interface SetupInputs {
  /** A folder is open in the window. */
  folder: boolean;
  /** The folder has worldline.yaml. */
  project: boolean;
  /** The main endpoint wants a key (not a local server) and none is set for its origin. */
  keyMissing: boolean;
  /** The main endpoint's host, for the words. */
  host: string;
}

/** A reply's usage as the page shows it, figures and words. */
export function chatUsage(t: UsageTotals, say: Say): ChatUsage {
  return { prompt: t.prompt, completion: t.completion, cached: t.cached, ...(t.cost ? { cost: { ...t.cost } } : {}), label: usageText(t, say) };
}

/** One message as the page shows it: the checkpoint as its commit and how many files it changed; a reply's usage when reported. */
export function chatMessage(m: TranscriptMessage, usage?: ChatUsage): ChatMessage {
  const message: ChatMessage = {
    id: m.id, role: m.role, text: m.text, hidden: m.hidden, edited: m.edited, variant: m.variant,
    finish: m.finish, error: m.error, tools: m.tools, model: m.model,
    checkpoint: m.checkpoint ? { commit: m.checkpoint.commit, changed: m.checkpoint.changed.length } : undefined,
  };
  if (m.speaker !== undefined) message.speaker = m.speaker;
  if (usage) message.usage = usage;
  return message;
}

/**
 * What a Chat keeps between refreshes, so a refresh costs what changed: the page's message for each
 * transcript message (the kept transcript gives the same object for a message that did not
 * change, src/story/keptTranscript.ts), and the session's usage until an entry is appended.
 * Keyed by the translator and price list too, which the shell keeps as the same functions.
 */
export class ChatModelCache {
  private readonly messages = new WeakMap<TranscriptMessage, { say: Say; pricing: Pricing | undefined; message: ChatMessage }>();
  /** The last transcript and its page messages: most messages are found again at their place. */
  private last: { transcript: readonly TranscriptMessage[]; messages: readonly ChatMessage[]; say: Say; pricing: Pricing | undefined } | undefined;
  /** The session's usage over its first `count` entries. */
  private session: { of: readonly Entry[]; count: number; pricing: Pricing | undefined; totals: UsageTotals } | undefined;
  /** A message whose checkpoint is lost, marked so: the same object while it stays lost. */
  private readonly lostOf = new WeakMap<ChatMessage, ChatMessage>();

  /** The message marked as having lost its checkpoint (itself when it has not). */
  marked(m: ChatMessage, lost: ReadonlySet<string>): ChatMessage {
    if (!isLost(m, lost)) return m;
    let known = this.lostOf.get(m);
    if (!known) this.lostOf.set(m, (known = markLost(m)));
    return known;
  }

  /** The page's messages for a transcript. */
  list(transcript: readonly TranscriptMessage[], branch: ChatBranch, pricing: Pricing | undefined, say: Say): ChatMessage[] {
    const last = this.last && this.last.say === say && this.last.pricing === pricing ? this.last : undefined;
    const out = new Array<ChatMessage>(transcript.length);
    for (let i = 0; i < transcript.length; i++) {
      const m = transcript[i] as TranscriptMessage;
      out[i] = last && last.transcript[i] === m ? (last.messages[i] as ChatMessage) : this.message(m, branch, pricing, say);
    }
    this.last = { transcript, messages: out, say, pricing };
    return out;
  }

  /** The page's message for one transcript message. */
  message(m: TranscriptMessage, branch: ChatBranch, pricing: Pricing | undefined, say: Say): ChatMessage {
    const known = this.messages.get(m);
    if (known && known.say === say && known.pricing === pricing) return known.message;
    const message = chatMessage(m, replyUsage(m, branch, pricing, say));
    this.messages.set(m, { say, pricing, message });
    return message;
  }

  /**
   * The usage of every call of the session. Entries are only ever appended, so the totals kept
   * for the first entries are extended by the new ones (the whole list is summed again only when
   * it is another list, or the price list changed).
   */
  sessionTotals(all: Iterable<Entry>, pricing: Pricing | undefined): UsageTotals {
    const known = this.session;
    if (!Array.isArray(all)) return usageTotals(all, pricing);
    const list = all as readonly Entry[];
    let totals: UsageTotals;
    if (known && known.of === list && known.pricing === pricing && list.length >= known.count) {
      if (list.length === known.count) return known.totals;
      totals = addTotals(known.totals, usageTotals(list.slice(known.count), pricing));
    } else {
      totals = usageTotals(list, pricing);
    }
    this.session = { of: list, count: list.length, pricing, totals };
    return totals;
  }
}

/**
 * The totals of two runs of calls, as `usageTotals` gives them for the two together: the cost
 * stays only when both runs are priced in one currency (a run without calls has nothing to price).
 */
function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  if (b.calls === 0) return a;
  if (a.calls === 0) return b;
  const t: UsageTotals = { calls: a.calls + b.calls, prompt: a.prompt + b.prompt, completion: a.completion + b.completion, cached: a.cached + b.cached, reasoning: a.reasoning + b.reasoning };
  if (a.cost && b.cost && a.cost.currency === b.cost.currency) t.cost = { amount: a.cost.amount + b.cost.amount, currency: a.cost.currency };
  return t;
}

function isLost(m: ChatMessage, lost: ReadonlySet<string>): m is ChatMessage & { checkpoint: NonNullable<ChatMessage['checkpoint']> } {
  return m.checkpoint !== undefined && lost.size > 0 && lost.has(m.checkpoint.commit);
}

function markLost(m: ChatMessage & { checkpoint: NonNullable<ChatMessage['checkpoint']> }): ChatMessage {
  return { ...m, checkpoint: { ...m.checkpoint, lost: true } };
}

const NO_LOST: ReadonlySet<string> = new Set();

/** A reply's usage: its model calls summed (every tool step of the reply); undefined for an instruction or when none was reported. */
function replyUsage(m: TranscriptMessage, branch: ChatBranch, pricing: Pricing | undefined, say: Say): ChatUsage | undefined {
  if (m.role !== 'assistant') return undefined;
  const entries: ChainEntry[] = [];
  for (const id of m.entryIds) {
    const e = branch.entry(id);
    if (e) entries.push(e);
  }
  const totals = usageTotals(entries, pricing);
  return totals.calls > 0 ? chatUsage(totals, say) : undefined;
}

/**
 * The page's model. The title: the session's, else the novel's (or "Chat" when it has none), and
 * "Worldline" with no novel open. The model label: the model's name, or "no model selected"; the
 * demo model is flagged so the page can say what it is. With a cache, what did not change since
 * the last call is not computed again.
 */
export function chatModel(inputs: ChatInputs, say: Say, cache?: ChatModelCache): ChatModel {
  const { story, session, novelTitle, pricing } = inputs;
  const branch = story?.branch();
  const lost = story?.lostCheckpoints ?? NO_LOST;
  // A lost checkpoint is marked after the cache, so the cache stays keyed by the transcript alone.
  const messages = !branch ? []
    : cache ? cache.list(branch.transcript, branch, pricing, say).map((m) => cache.marked(m, lost))
      : branch.transcript.map((m) => chatMessage(m, replyUsage(m, branch, pricing, say))).map((m) => (isLost(m, lost) ? markLost(m) : m));
  const model: ChatModel = {
    title: session?.title ?? (novelTitle !== undefined ? novelTitle || say(l10n.t('Chat')) : 'Worldline'),
    readOnly: session?.readOnly ?? false,
    busy: story?.busy ?? false,
    phase: story?.phase ?? 'idle',
    modelLabel: inputs.model || say(l10n.t('no model selected')),
    isDemo: isDemoModel(inputs.model),
    messages,
    canRetry: story?.canRetry ?? false,
  };
  if (inputs.notice) model.notice = inputs.notice;
  const pending = story?.pending;
  if (pending) model.pending = { text: pending.text };
  if (branch) {
    // Every call of the session, branches not taken included (they were billed too).
    const all = session?.entries?.() ?? branch.path;
    const totals = cache ? cache.sessionTotals(all, pricing) : usageTotals(all, pricing);
    if (totals.calls > 0) model.sessionUsage = sessionUsageText(totals, say);
  }
  const setup = inputs.setup ? setupStep(inputs.setup, inputs.model, say) : undefined;
  if (setup) model.setup = setup;
  return model;
}

/**
 * The next first-run step that is missing, in order: a folder, worldline.yaml, a model (a provider
 * chosen), the key for the main endpoint; undefined when the first instruction can go out.
 */
export function setupStep(s: SetupInputs, model: string, say: Say): SetupStep | undefined {
  const act = (command: ChatCommand, label: Text): SetupStep['actions'][number] => ({ command, label: say(label) });
  if (!s.folder) {
    return { missing: 'folder', text: say(l10n.t('Open the folder of your novel to begin (File > Open Folder).')), actions: [act('openFolder', l10n.t('Open Folder…'))] };
  }
  if (!s.project) {
    return {
      missing: 'project',
      text: say(l10n.t('This folder is not a Worldline novel yet. Initialize it to create worldline.yaml and a first chapter; nothing you have is changed.')),
      actions: [act('initializeNovel', l10n.t('Initialize Novel'))],
    };
  }
  if (!model) {
    return {
      missing: 'model',
      text: say(l10n.t('Choose the provider and the model that will write with you.')),
      actions: [act('chooseProvider', l10n.t('Choose Provider…')), act('selectModel', l10n.t('Select Model'))],
    };
  }
  if (s.keyMissing) {
    return {
      missing: 'key',
      text: say(l10n.t('Set the API key for {0}. It is kept in VS Code\'s secret storage and sent to this endpoint only.', s.host)),
      actions: [act('setKey', l10n.t('Set API Key')), act('chooseProvider', l10n.t('Choose Provider…'))],
    };
  }
  return undefined;
}

/** The palette command behind a Chat button. */
export function pageCommandId(command: ChatCommand): string {
  switch (command) {
    case 'setKey': return 'worldline.setApiKey';
    case 'selectModel': return 'worldline.selectModel';
    case 'chooseProvider': return 'worldline.chooseProvider';
    case 'initializeNovel': return 'worldline.initializeNovel';
    case 'testConnection': return 'worldline.testConnection';
    case 'openFolder': return 'vscode.openFolder'; // without a URI: the native folder dialog
  }
}

/**
 * What the streaming block shows: the agent's stream, minus the tool lines whose results are
 * already recorded, since the message list shows those (see `recordedToolLines`); the reasoning
 * where the provider streams it (an empty one is none), and when the step began waiting.
 */
export function chatStream(story: ChatStory | undefined): ChatStream | undefined {
  const s = story?.stream;
  if (!story || !s) return undefined;
  const view: ChatStream = { text: s.text, tools: s.tools.slice(recordedToolLines(story.branch().path)) };
  if (s.reasoning) view.reasoning = s.reasoning;
  if (s.since !== undefined) view.since = s.since;
  return view;
}

/** The phase message: the page counts as busy while any phase (the scribe too) is running. */
export function phaseMessage(story: ChatStory | undefined): Extract<ToChatPage, { type: 'phase' }> {
  const phase = story?.phase ?? 'idle';
  return { type: 'phase', phase, busy: (story?.busy ?? false) || phase !== 'idle' };
}

/** The palette command a message's checkpoint button runs (with the checkpoint entry of that message). */
export function checkpointCommand(m: Extract<FromChatPage, { type: 'restore' | 'showChanges' }>): string {
  if (m.type === 'showChanges') return 'worldline.showTurnChanges';
  return m.withChat ? 'worldline.restoreProseAndChat' : 'worldline.restoreProseOnly';
}
