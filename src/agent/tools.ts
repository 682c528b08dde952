// The agent's manuscript tools: their JSON schemas (OpenAI function calling) and their execution.
// `executeTool` never throws: every problem becomes an `isError` result whose text tells the model
// what to do next, because that text is exactly what the model sees.
import type { ManuscriptFs } from './fsNode';
import {
  charCount,
  closestLine,
  compareReadingOrder,
  detectEol,
  findOccurrences,
  formatCount,
  lineAtOffset,
  snippet,
  splitLines,
  withEol,
  type Lang,
} from './manuscript';
import { manuscriptOf, type ManuscriptMatcher, type ManuscriptSpec } from '../project/manuscript';
import { isCodexFile, isInCodexFolder } from '../project/codexFolder';
import { lookupText } from '../codex/lookup';
import type { CodexEntry } from '../codex/types';
import { isConfinementError } from './confinedFile';
import { confineReal, confinementText, resolveAndConfine, resolveManuscriptPath } from './paths';

export type ToolName = 'list_manuscript' | 'read_file' | 'write_file' | 'edit_file' | 'append_file' | 'world_state_get' | 'codex_lookup';
export const TOOL_NAMES: readonly ToolName[] = ['list_manuscript', 'read_file', 'write_file', 'edit_file', 'append_file', 'world_state_get', 'codex_lookup'];

/** The setting that lets the agent write codex files (default off: the lore is the novelist's). */
export const CODEX_WRITE_SETTING = 'worldline.codex.agentMayWrite';

/** Output cap for read_file and list_manuscript, in characters. */
export const READ_CAP_CHARS = 60_000;

export interface JsonSchemaProperty {
  type: 'string' | 'integer';
  description: string;
  minimum?: number;
}

export interface ToolSchema {
  type: 'function';
  function: {
    name: ToolName;
    description: string;
    parameters: {
      type: 'object';
      properties: Record<string, JsonSchemaProperty>;
      required: string[];
      additionalProperties: false;
    };
  };
}

export interface ToolContext {
  fs: ManuscriptFs;
  /** Absolute path of the novel folder. */
  root: string;
  /** The manuscript: the project config's matcher, or its globs (compiled by the same function). */
  globs: ManuscriptSpec;
  /** The scene state on the current branch (may return a promise); a string is passed through. */
  getState: () => unknown;
  lang: Lang;
  /** The book's codex; without it codex paths are treated like any other non-manuscript path. */
  codex?: CodexAccess;
}

export interface CodexAccess {
  /** worldline.yaml `codex:`, POSIX, relative to the book. */
  folder: string;
  /** `worldline.codex.agentMayWrite`, read at each call. */
  mayWrite(): boolean;
  /** The entries of the codex now (cached by the caller). */
  entries(): readonly CodexEntry[] | Promise<readonly CodexEntry[]>;
}

export interface ToolChange {
  /** POSIX path relative to the novel folder, as the model named it. */
  path: string;
  /** Text before the call; undefined when the call created the file. */
  before: string | undefined;
  after: string;
  kind: 'write' | 'edit' | 'append';
}

export interface ToolOutcome {
  result: string;
  isError: boolean;
  /** Present only when a file's text actually changed. */
  change?: ToolChange;
}

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

// ---------------------------------------------------------------------------------------------
// Schemas

interface FieldSpec {
  name: string;
  type: 'string' | 'integer';
  required: boolean;
  en: string;
  zh: string;
}

const PATH_FIELD: FieldSpec = {
  name: 'path',
  type: 'string',
  required: true,
  en: 'File path relative to the novel folder, with "/" between folders, e.g. "chapters/03.md".',
  zh: '相对于小说文件夹的文件路径，文件夹之间用 "/"，例如 "chapters/03.md"。',
};

const FIELDS: Record<ToolName, FieldSpec[]> = {
  list_manuscript: [],
  read_file: [
    PATH_FIELD,
    { name: 'startLine', type: 'integer', required: false, en: 'First line to read, 1-based. Default 1.', zh: '起始行号，从 1 开始。默认 1。' },
    { name: 'endLine', type: 'integer', required: false, en: 'Last line to read, inclusive. Default: the last line.', zh: '结束行号（包含该行）。默认到最后一行。' },
  ],
  write_file: [
    PATH_FIELD,
    { name: 'content', type: 'string', required: true, en: 'The complete new text of the file.', zh: '文件完整的新内容。' },
  ],
  edit_file: [
    PATH_FIELD,
    { name: 'old_text', type: 'string', required: true, en: 'Exact text currently in the file; must occur exactly once.', zh: '文件中现有的原文，必须逐字一致且只出现一次。' },
    { name: 'new_text', type: 'string', required: true, en: 'Replacement text (may be empty to delete old_text).', zh: '替换后的文字（为空则删除 old_text）。' },
  ],
  append_file: [
    PATH_FIELD,
    { name: 'content', type: 'string', required: true, en: 'Text to add at the end of the file.', zh: '要加到文件末尾的文字。' },
  ],
  world_state_get: [],
  codex_lookup: [
    { name: 'query', type: 'string', required: true, en: 'A name, alias or key of the entry, e.g. "Qingwu".', zh: '条目的名字、别名或关键词，例如「青梧」。' },
  ],
};

const DESCRIPTIONS: Record<ToolName, { en: string; zh: string }> = {
  list_manuscript: {
    en: 'List the manuscript files in reading order, with their length in characters and lines. Call it first to see which chapters exist.',
    zh: '按阅读顺序列出正文文件及其字数和行数。先调用它来了解已有哪些章节。',
  },
  read_file: {
    en: `Read a manuscript file, or a range of its lines (1-based, inclusive). After a one-line header the text is returned exactly as in the file, without line numbers, so passages can be copied verbatim into edit_file. Output over ${formatCount(READ_CAP_CHARS)} characters is cut, with a note saying which startLine to read next.`,
    zh: `读取正文文件，或其中若干行（行号从 1 开始，包含首尾）。第一行是说明，之后原样返回文件内容，不带行号，可逐字复制到 edit_file。超过 ${formatCount(READ_CAP_CHARS)} 字会被截断，并注明下次从哪一行（startLine）继续读。`,
  },
  write_file: {
    en: 'Create a manuscript file, or replace its whole text. Missing folders are created. For small changes use edit_file; to continue a chapter use append_file.',
    zh: '新建正文文件，或整体替换其内容。缺少的文件夹会自动创建。小改动请用 edit_file；续写章节请用 append_file。',
  },
  edit_file: {
    en: 'Replace one passage of a manuscript file. old_text must match the file exactly once, punctuation and line breaks included; if it could occur more than once, include the surrounding sentence. new_text may be empty to delete the passage.',
    zh: '替换正文文件中的一段文字。old_text 必须与文件逐字一致（包括标点和换行）且只出现一次；可能重复时请带上前后的句子。new_text 为空即删除这段文字。',
  },
  append_file: {
    en: 'Add text at the end of a manuscript file (created if missing). If the file does not end with a line break, one is added first; start content with an empty line to leave a blank line between paragraphs.',
    zh: '在正文文件末尾追加文字（文件不存在则新建）。若文件末尾没有换行，会先补一个换行；若要在段落之间空一行，请让 content 以空行开头。',
  },
  world_state_get: {
    en: 'Read the current scene state as JSON: in-story time, location, characters present with where they are, items and who holds them, facts, open threads and the roster of known names. Read-only: it is updated automatically after each turn.',
    zh: '以 JSON 读取当前场景状态：故事内时间、地点、在场人物及其所在、物品及持有者、事实、伏笔与未决线索、已登场名录。只读：每轮结束后会自动更新。',
  },
  codex_lookup: {
    en: 'Look up the book\'s codex (the novelist\'s lore: characters, places, items, factions, rules, style) by name or key, and get the matching entries\' text. Entries named in the conversation are often already given with the instruction.',
    zh: '按名字或关键词查询本书的设定集（作者写的人物、地点、物品、势力、规则、文风设定），返回匹配条目的内容。对话里提到的条目通常已随指令附上。',
  },
};

/** The tools in OpenAI function-calling format, described in the novel's language. */
export function toolSchemas(lang: Lang): ToolSchema[] {
  return TOOL_NAMES.map((name) => {
    const properties: Record<string, JsonSchemaProperty> = {};
    for (const f of FIELDS[name]) {
      properties[f.name] = { type: f.type, description: lang === 'zh' ? f.zh : f.en, ...(f.type === 'integer' ? { minimum: 1 } : {}) };
    }
    return {
      type: 'function',
      function: {
        name,
        description: DESCRIPTIONS[name][lang],
        parameters: { type: 'object', properties, required: FIELDS[name].filter((f) => f.required).map((f) => f.name), additionalProperties: false },
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Arguments

type Args = Record<string, string | number | undefined>;

/** `{"path": string, "startLine"?: integer >= 1}`: the shape quoted in every argument error. */
function shapeOf(name: ToolName): string {
  const fields = FIELDS[name];
  if (fields.length === 0) return '{}';
  const parts = fields.map((f) => `"${f.name}"${f.required ? '' : '?'}: ${f.type === 'integer' ? 'integer >= 1' : 'string'}`);
  return `{${parts.join(', ')}}`;
}

function parseArgs(name: ToolName, argsJson: string, lang: Lang): { ok: true; args: Args } | { ok: false; error: string } {
  const expected = t(lang, `${name} expects arguments as a JSON object: ${shapeOf(name)}.`, `${name} 的参数应为 JSON 对象：${shapeOf(name)}。`);
  // Tools without parameters ignore whatever arrives; models send "", "null" or "{}" alike.
  if (FIELDS[name].length === 0) return { ok: true, args: {} };
  let value: unknown;
  try {
    value = argsJson.trim() === '' ? {} : JSON.parse(argsJson);
    // Some models encode the arguments twice: a JSON string that holds the JSON object.
    if (typeof value === 'string') value = JSON.parse(value);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, error: t(lang, `The arguments are not valid JSON (${why}). `, `参数不是合法的 JSON（${why}）。`) + expected };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: expected };
  }
  const record = value as Record<string, unknown>;
  const known = new Set(FIELDS[name].map((f) => f.name));
  const unknown = Object.keys(record).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    return { ok: false, error: t(lang, `Unknown field ${unknown.map((k) => `"${k}"`).join(', ')}. `, `未知字段 ${unknown.map((k) => `"${k}"`).join('、')}。`) + expected };
  }
  const args: Args = {};
  for (const f of FIELDS[name]) {
    const v = record[f.name];
    if (v === undefined || v === null) {
      if (f.required) return { ok: false, error: t(lang, `Missing "${f.name}". `, `缺少 "${f.name}"。`) + expected };
      continue;
    }
    if (f.type === 'string' && typeof v !== 'string') {
      return { ok: false, error: t(lang, `"${f.name}" must be a string, got ${typeName(v)}. `, `"${f.name}" 必须是字符串，收到的是 ${typeName(v)}。`) + expected };
    }
    if (f.type === 'integer' && !(typeof v === 'number' && Number.isInteger(v) && v >= 1)) {
      return { ok: false, error: t(lang, `"${f.name}" must be a whole number of at least 1, got ${JSON.stringify(v)}. `, `"${f.name}" 必须是不小于 1 的整数，收到的是 ${JSON.stringify(v)}。`) + expected };
    }
    args[f.name] = v as string | number;
  }
  return { ok: true, args };
}

function typeName(v: unknown): string {
  return Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`;
}

const str = (a: Args, k: string): string => {
  const v = a[k];
  return typeof v === 'string' ? v : '';
};
const int = (a: Args, k: string): number | undefined => {
  const v = a[k];
  return typeof v === 'number' ? v : undefined;
};

// ---------------------------------------------------------------------------------------------
// Results

function ok(result: string, change?: ToolChange): ToolOutcome {
  return change ? { result, isError: false, change } : { result, isError: false };
}
function error(result: string): ToolOutcome {
  return { result, isError: true };
}

/** "1 line", "2 lines", "1,204 chars": English plurals; Chinese needs none. */
function en(n: number, unit: string): string {
  return `${formatCount(n)} ${unit}${n === 1 ? '' : 's'}`;
}

function signed(n: number): string {
  return n >= 0 ? `+${formatCount(n)}` : formatCount(n);
}

/** One compact line for the chat view and the tool result, e.g. "wrote chapters/03.md, +1,204 chars". */
export function describeChange(change: ToolChange, lang: Lang): string {
  const delta = charCount(change.after) - charCount(change.before ?? '');
  const amount = t(lang, `${signed(delta)} char${Math.abs(delta) === 1 ? '' : 's'}`, `${signed(delta)} 字`);
  const created = change.before === undefined;
  const verb = created
    ? t(lang, 'created', '新建')
    : change.kind === 'write'
      ? t(lang, 'wrote', '改写')
      : change.kind === 'edit'
        ? t(lang, 'edited', '修改')
        : t(lang, 'appended to', '续写');
  return t(lang, `${verb} ${change.path}, ${amount}`, `${verb} ${change.path}，${amount}`);
}

function totals(text: string, lang: Lang): string {
  const chars = charCount(text);
  const lines = splitLines(text).length;
  return t(lang, `now ${en(chars, 'char')}, ${en(lines, 'line')}`, `现共 ${formatCount(chars)} 字、${formatCount(lines)} 行`);
}

function changed(change: ToolChange, lang: Lang): ToolOutcome {
  return ok(t(lang, `${describeChange(change, lang)} (${totals(change.after, lang)}).`, `${describeChange(change, lang)}（${totals(change.after, lang)}）。`), change);
}

function missing(rel: string, lang: Lang): ToolOutcome {
  return error(t(
    lang,
    `"${rel}" does not exist. Call list_manuscript to see the files, or write_file to create it.`,
    `"${rel}" 不存在。请调用 list_manuscript 查看已有文件，或用 write_file 新建。`,
  ));
}

/** Turns a file-system exception (Node's or the shell's) into something the model can act on. */
function fsError(err: unknown, rel: string, lang: Lang): ToolOutcome {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (isConfinementError(err)) return error(confinementText(err, lang));
  if (code === 'EISDIR' || code === 'FileIsADirectory') {
    return error(t(lang, `"${rel}" is a folder, not a file. Call list_manuscript to see the files.`, `"${rel}" 是文件夹，不是文件。请调用 list_manuscript 查看文件。`));
  }
  if (code === 'ENOTDIR' || code === 'EEXIST' || code === 'FileNotADirectory') {
    return error(t(lang, `A part of "${rel}" is a file where a folder is needed. Choose another path.`, `"${rel}" 路径中有一段是文件而不是文件夹。请换一个路径。`));
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'NoPermissions') {
    return error(t(lang, `Permission denied for "${rel}". Tell the novelist; do not retry.`, `没有权限访问 "${rel}"。请告知作者，不要重试。`));
  }
  return error(t(lang, `Could not access "${rel}": ${message}. Tell the novelist if this persists.`, `无法访问 "${rel}"：${message}。如果反复出现请告知作者。`));
}

// ---------------------------------------------------------------------------------------------
// Tools

async function listManuscript(ctx: ToolContext): Promise<ToolOutcome> {
  const { lang } = ctx;
  const manuscript = manuscriptOf(ctx.globs);
  const candidates = (await ctx.fs.list()).filter((p) => manuscript.matches(p)).sort(compareReadingOrder);
  const rows: string[] = [];
  let hidden = 0;
  let total = 0;
  for (const rel of candidates) {
    const lexical = resolveManuscriptPath(ctx.root, rel, manuscript, lang);
    // Files the tools could not open anyway (odd names, links, FIFOs, hard links) are not offered.
    if (!lexical.ok || lexical.rel !== rel || !(await confineReal(ctx.fs, rel, manuscript, lang)).ok) {
      hidden++;
      continue;
    }
    let text: string | undefined;
    try {
      text = await ctx.fs.readText(rel);
    } catch (err) {
      if (!isConfinementError(err)) throw err;
      hidden++;
      continue;
    }
    if (text === undefined) continue;
    const chars = charCount(text);
    const lines = splitLines(text).length;
    total += chars;
    rows.push(t(lang, `${rel} — ${en(chars, 'char')}, ${en(lines, 'line')}`, `${rel} — ${formatCount(chars)} 字，${formatCount(lines)} 行`));
  }
  const globs = manuscript.globs.join(', ');
  const skipped = hidden > 0
    ? t(lang, `\n(${en(hidden, 'more file')} not shown: links, files that are not plain files, or names the tools cannot use.)`, `\n（另有 ${hidden} 个文件未列出：链接、非普通文件，或工具无法使用的文件名。）`)
    : '';
  if (rows.length === 0) {
    return ok(t(
      lang,
      `No manuscript files yet (files matching ${globs}). Create one with write_file, e.g. "chapters/01.md".${skipped}`,
      `还没有正文文件（匹配 ${globs} 的文件）。可用 write_file 新建，例如 "chapters/01.md"。${skipped}`,
    ));
  }
  const header = t(
    lang,
    `${en(rows.length, 'manuscript file')}, ${en(total, 'char')} in total, in reading order:`,
    `共 ${rows.length} 个正文文件，合计 ${formatCount(total)} 字，按阅读顺序：`,
  );
  let out = header;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as string;
    if (out.length + row.length + 1 > READ_CAP_CHARS) {
      out += t(lang, `\n… and ${rows.length - i} more.`, `\n……另有 ${rows.length - i} 个。`);
      break;
    }
    out += `\n${row}`;
  }
  return ok(out + skipped);
}

async function readFile(ctx: ToolContext, rel: string, startLine: number | undefined, endLine: number | undefined): Promise<ToolOutcome> {
  const { lang } = ctx;
  const text = await ctx.fs.readText(rel);
  if (text === undefined) return missing(rel, lang);
  const lines = splitLines(text);
  const count = lines.length;
  if (count === 0) return ok(t(lang, `${rel} is empty (0 lines).`, `${rel} 是空文件（0 行）。`));
  const start = startLine ?? 1;
  if (start > count) {
    return error(t(lang, `${rel} has ${en(count, 'line')}; startLine ${start} is past the end.`, `${rel} 只有 ${count} 行；startLine ${start} 超出了末尾。`));
  }
  if (endLine !== undefined && endLine < start) {
    return error(t(lang, `endLine (${endLine}) is before startLine (${start}).`, `endLine（${endLine}）在 startLine（${start}）之前。`));
  }
  const end = Math.min(endLine ?? count, count);
  const body: string[] = [];
  let size = 0;
  let last = start - 1;
  let note = '';
  for (let n = start; n <= end; n++) {
    const line = lines[n - 1] as string;
    if (size + line.length + 1 > READ_CAP_CHARS) {
      if (body.length === 0) {
        // A single enormous line: show its start rather than nothing.
        body.push(line.slice(0, READ_CAP_CHARS));
        last = n;
        note = t(lang, `[line ${n} is longer than ${formatCount(READ_CAP_CHARS)} characters; only its start is shown.`, `[第 ${n} 行超过 ${formatCount(READ_CAP_CHARS)} 字，只显示开头。`);
      } else {
        note = t(lang, `[cut at ${formatCount(READ_CAP_CHARS)} characters.`, `[超过 ${formatCount(READ_CAP_CHARS)} 字，已截断。`);
      }
      if (last < end) {
        note += t(lang, ` Call read_file with startLine=${last + 1} to read on.]`, `请用 startLine=${last + 1} 调用 read_file 继续读。]`);
      } else {
        note += ']';
      }
      break;
    }
    body.push(line);
    size += line.length + 1;
    last = n;
  }
  const header = t(lang, `${rel} lines ${start}-${last} of ${count}`, `${rel} 第 ${start}-${last} 行（共 ${count} 行）`);
  return ok(`${header}\n${body.join('\n')}${note ? `\n${note}` : ''}`);
}

async function writeFile(ctx: ToolContext, rel: string, content: string): Promise<ToolOutcome> {
  const before = await ctx.fs.readText(rel);
  // Model text always uses "\n"; keep a CRLF file CRLF so the diff shows only the real change.
  const after = before !== undefined && detectEol(before) === '\r\n' ? withEol(content, '\r\n') : content;
  if (before === after) {
    return ok(t(ctx.lang, `${rel} already has exactly this text; nothing changed.`, `${rel} 的内容与此完全相同，未作改动。`));
  }
  await ctx.fs.writeText(rel, after);
  return changed({ path: rel, before, after, kind: 'write' }, ctx.lang);
}

async function editFile(ctx: ToolContext, rel: string, oldText: string, newText: string): Promise<ToolOutcome> {
  const { lang } = ctx;
  if (oldText === '') {
    return error(t(
      lang,
      'old_text is empty. Copy the exact passage to replace from read_file; to add text at the end use append_file, to replace everything use write_file.',
      'old_text 为空。请从 read_file 的结果中逐字复制要替换的原文；在末尾添加请用 append_file，整体替换请用 write_file。',
    ));
  }
  if (oldText === newText) {
    return error(t(lang, 'old_text and new_text are identical; there is nothing to change.', 'old_text 与 new_text 完全相同，没有需要修改的内容。'));
  }
  const before = await ctx.fs.readText(rel);
  if (before === undefined) return missing(rel, lang);
  const eol = detectEol(before);
  let needle = oldText;
  let matches = findOccurrences(before, needle);
  if (matches.length === 0 && eol === '\r\n' && oldText.includes('\n')) {
    needle = withEol(oldText, '\r\n');
    matches = findOccurrences(before, needle);
  }
  if (matches.length === 0) return error(notFound(before, oldText, rel, lang));
  if (matches.length > 1) {
    const lines = [...new Set(matches.map((i) => lineAtOffset(before, i)))];
    const shown = lines.slice(0, 8).join(', ') + (lines.length > 8 ? ', …' : '');
    return error(t(
      lang,
      `old_text occurs ${matches.length} times in ${rel} (lines ${shown}). Include more of the surrounding text in old_text so that it matches exactly once.`,
      `old_text 在 ${rel} 中出现了 ${matches.length} 次（第 ${shown} 行）。请在 old_text 中带上更多前后文，使它只匹配一处。`,
    ));
  }
  const at = matches[0] as number;
  const replacement = eol === '\r\n' ? withEol(newText, '\r\n') : newText;
  // Slicing, not String.replace: "$&" and friends in new_text must stay literal.
  const after = before.slice(0, at) + replacement + before.slice(at + needle.length);
  await ctx.fs.writeText(rel, after);
  return changed({ path: rel, before, after, kind: 'edit' }, lang);
}

function notFound(text: string, oldText: string, rel: string, lang: Lang): string {
  const base = t(lang, `old_text was not found in ${rel}.`, `在 ${rel} 中找不到 old_text。`);
  const squash = (s: string): string => s.replace(/\s+/gu, '');
  if (squash(oldText) !== '' && squash(text).includes(squash(oldText))) {
    return base + t(
      lang,
      ' It matches only when spaces and line breaks are ignored: call read_file on that passage and copy it exactly, line breaks included.',
      '忽略空格和换行时可以匹配：请用 read_file 读出那一段，逐字（包括换行）复制。',
    );
  }
  const near = closestLine(text, oldText);
  if (near) {
    return base + t(
      lang,
      ` The closest line is ${near.line}: "${snippet(near.text)}". Call read_file around line ${near.line} and copy the text exactly.`,
      `最接近的是第 ${near.line} 行："${snippet(near.text)}"。请用 read_file 读取该行附近，逐字复制原文。`,
    );
  }
  return base + t(lang, ' Call read_file and copy the passage exactly as it is in the file.', '请先用 read_file 读取，再逐字复制文件中的原文。');
}

async function appendFile(ctx: ToolContext, rel: string, content: string): Promise<ToolOutcome> {
  if (content === '') {
    return error(t(ctx.lang, 'content is empty; there is nothing to append.', 'content 为空，没有可追加的内容。'));
  }
  const before = await ctx.fs.readText(rel);
  const eol = before !== undefined ? detectEol(before) : '\n';
  const addition = eol === '\r\n' ? withEol(content, '\r\n') : content;
  // Prose glued to the previous last line ("…end.Next") is never intended: ensure a line break,
  // but only one; a blank line (a Markdown paragraph break) is the model's choice.
  const needsBreak = before !== undefined && before !== '' && !before.endsWith('\n') && !addition.startsWith('\n') && !addition.startsWith('\r\n');
  const after = (before ?? '') + (needsBreak ? eol : '') + addition;
  await ctx.fs.writeText(rel, after);
  return changed({ path: rel, before, after, kind: 'append' }, ctx.lang);
}

async function worldStateGet(ctx: ToolContext): Promise<ToolOutcome> {
  const state: unknown = await ctx.getState();
  if (state === undefined || state === null) {
    return ok(t(ctx.lang, 'There is no scene state yet.', '还没有场景状态。'));
  }
  return ok(typeof state === 'string' ? state : JSON.stringify(state, null, 2));
}

async function codexLookup(ctx: ToolContext, query: string): Promise<ToolOutcome> {
  if (!ctx.codex) return ok(t(ctx.lang, 'The book has no codex.', '这本书没有设定集。'));
  if (query.trim() === '') return error(t(ctx.lang, 'query is empty: give a name or key, e.g. "Qingwu".', 'query 为空：请给出名字或关键词，例如「青梧」。'));
  return ok(lookupText(await ctx.codex.entries(), query, ctx.lang));
}

/** The matcher of the codex's entry files: what read and (when allowed) write tools may touch there. */
function codexMatcher(folder: string): ManuscriptMatcher {
  return {
    globs: [`${folder}/**/*.md`],
    matches: (p: string) => isCodexFile(folder, p),
    mayContain: (dir: string) => dir === '' || isInCodexFolder(dir, folder) || isInCodexFolder(folder, dir),
  };
}

/** When `input` names a file in the codex folder: its path and the codex's matcher. */
function codexPathSpec(ctx: ToolContext, input: string): { rel: string; matcher: ManuscriptMatcher } | undefined {
  if (!ctx.codex) return undefined;
  const matcher = codexMatcher(ctx.codex.folder);
  const lexical = resolveManuscriptPath(ctx.root, input, matcher, ctx.lang);
  return lexical.ok ? { rel: lexical.rel, matcher } : undefined;
}

function codexWriteRefusal(rel: string, lang: Lang): string {
  return t(
    lang,
    `"${rel}" is a codex file: the codex is the novelist's, and the agent may not change it. Ask the novelist to make the change (or to turn on the setting "${CODEX_WRITE_SETTING}"); codex_lookup and read_file can still read it.`,
    `"${rel}" 是设定集文件：设定集归作者所有，助手不能修改。请让作者来改（或让作者打开设置项「${CODEX_WRITE_SETTING}」）；仍可用 codex_lookup 和 read_file 读取。`,
  );
}

function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/** Runs one tool call. Never throws; a refused or failed call comes back with `isError: true`. */
export async function executeTool(ctx: ToolContext, name: string, argsJson: string): Promise<ToolOutcome> {
  const { lang } = ctx;
  if (!isToolName(name)) {
    return error(t(lang, `Unknown tool "${name}". Available tools: ${TOOL_NAMES.join(', ')}.`, `没有名为 "${name}" 的工具。可用的工具：${TOOL_NAMES.join('、')}。`));
  }
  const parsed = parseArgs(name, typeof argsJson === 'string' ? argsJson : '', lang);
  if (!parsed.ok) return error(parsed.error);
  const args = parsed.args;
  let rel = str(args, 'path');
  try {
    if (name === 'list_manuscript') return await listManuscript(ctx);
    if (name === 'world_state_get') return await worldStateGet(ctx);
    if (name === 'codex_lookup') return await codexLookup(ctx, str(args, 'query'));
    // A codex file is confined exactly as a manuscript file is (same checks, the codex's matcher),
    // and written only when the novelist allows it.
    const codex = codexPathSpec(ctx, rel);
    if (codex && name !== 'read_file' && !(ctx.codex?.mayWrite() ?? false)) return error(codexWriteRefusal(codex.rel, lang));
    const checked = await resolveAndConfine(ctx.fs, ctx.root, rel, codex?.matcher ?? ctx.globs, lang);
    if (!checked.ok) return error(checked.error);
    rel = checked.rel;
    switch (name) {
      case 'read_file':
        return await readFile(ctx, rel, int(args, 'startLine'), int(args, 'endLine'));
      case 'write_file':
        return await writeFile(ctx, rel, str(args, 'content'));
      case 'edit_file':
        return await editFile(ctx, rel, str(args, 'old_text'), str(args, 'new_text'));
      case 'append_file':
        return await appendFile(ctx, rel, str(args, 'content'));
    }
  } catch (err) {
    if (name === 'world_state_get') {
      const why = err instanceof Error ? err.message : String(err);
      return error(t(lang, `The scene state could not be read (${why}). Continue without it.`, `无法读取场景状态（${why}）。请在没有它的情况下继续。`));
    }
    return fsError(err, rel === '' ? name : rel, lang);
  }
}
