// Confines every path the model gives to the manuscript. Two stages:
// 1. `resolveManuscriptPath`: purely lexical, so it is exhaustively testable and runs before any I/O;
// 2. `confineReal`: refuses a link on the way just before use, naming the real path where it can
//    (the same rules are enforced by handle at the moment of use, in `confinedFile.ts`).
// Each refusal says what to do instead, because it is returned to the model as a tool result.
import * as path from 'node:path';
import type { ConfinementError, NonFileKind } from './confinedFile';
import type { ManuscriptFs } from './fsNode';
import { manuscriptOf, type ManuscriptSpec } from '../project/manuscript';
import { isReservedSegment, type Lang } from './manuscript';

export type PathCheck = { ok: true; rel: string; abs: string } | { ok: false; error: string };
export type ConfineCheck = { ok: true } | { ok: false; error: string };

export const MAX_PATH_CHARS = 1024;
export const MAX_SEGMENT_BYTES = 255;

const CONTROL = /[\u0000-\u001f\u007f]/u;
// Text-direction overrides can make "evil\u202Edm.txt" display as a different name to the novelist.
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/u;
const PERCENT = /%(?:2e|2f|5c|00)/i;
const PATTERN_CHARS = /[*?]/;
const NON_PORTABLE = /[<>:"|]/;
const WIN_DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\..*)?$/i;
const SHORT_NAME = /~\d/; // Windows 8.3 aliases: "GIT~1" can be ".git"
const EDGE_SPACE_OR_DOT = /^\s|[\s.]$/u;

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

function quote(s: string): string {
  const shown = s.length > 120 ? `${s.slice(0, 117)}...` : s;
  return JSON.stringify(shown);
}

function globList(globs: readonly string[]): string {
  return globs.length > 0 ? globs.join(', ') : '(none)';
}

/** A path that the globs accept, for "such as …" hints; undefined when none of the usual ones fits. */
export function examplePath(globs: ManuscriptSpec): string | undefined {
  const m = manuscriptOf(globs);
  return ['chapters/03.md', '03.md', 'chapters/03.txt', '03.txt'].find((p) => m.matches(p));
}

function useRelative(lang: Lang, globs: ManuscriptSpec): string {
  const ex = examplePath(globs);
  return ex
    ? t(lang, `Use a path relative to the novel folder, such as "${ex}".`, `请使用相对于小说文件夹的路径，例如 "${ex}"。`)
    : t(lang, 'Use a path relative to the novel folder.', '请使用相对于小说文件夹的路径。');
}

function allowedFiles(lang: Lang, spec: ManuscriptSpec): string {
  const globs = manuscriptOf(spec).globs;
  if (globs.length === 0) {
    return t(
      lang,
      'No manuscript globs are configured; the novelist must set "manuscript:" in worldline.yaml.',
      '尚未配置正文文件规则；需要作者在 worldline.yaml 里设置 "manuscript:"。',
    );
  }
  return t(lang, `Manuscript files match: ${globList(globs)}.`, `正文文件须匹配：${globList(globs)}。`);
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

function reservedPurpose(segment: string, lang: Lang): string {
  const name = segment.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '').toLowerCase();
  if (name === '.git') return t(lang, "the novelist's git repository", '作者自己的 git 仓库');
  if (name === '.worldline') return t(lang, "Worldline's sessions and checkpoints", 'Worldline 的会话与存档');
  if (name === '.vscode') return t(lang, "VS Code's settings for this folder", '这个文件夹的 VS Code 设置');
  return t(lang, 'installed packages', '安装的依赖包');
}

/** Byte length in UTF-8 (file systems limit names in bytes, and a CJK character is 3). */
function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/**
 * Lexical check and normalisation of a model-given path. On success `rel` is the canonical POSIX
 * relative path (backslashes turned into "/", "./" and doubled slashes removed) and `abs` lies
 * inside `root`. Never touches the disk; `root` only serves to translate an absolute path that
 * already points into the novel into a hint.
 */
export function resolveManuscriptPath(root: string, input: string, globs: ManuscriptSpec, lang: Lang = 'en'): PathCheck {
  if (typeof input !== 'string') {
    return fail(t(lang, `The path must be a string. ${useRelative(lang, globs)}`, `路径必须是字符串。${useRelative(lang, globs)}`));
  }
  const raw = input.trim();
  const q = quote(raw);
  if (raw === '') {
    return fail(t(lang, `The path is empty. ${useRelative(lang, globs)}`, `路径为空。${useRelative(lang, globs)}`));
  }
  if (CONTROL.test(raw)) {
    return fail(t(lang, `Path ${q} contains control characters (such as NUL). ${useRelative(lang, globs)}`, `路径 ${q} 含有控制字符（如 NUL）。${useRelative(lang, globs)}`));
  }
  if (raw.length > MAX_PATH_CHARS) {
    return fail(t(lang, `The path is too long (${raw.length} characters, at most ${MAX_PATH_CHARS}). Use a shorter path.`, `路径过长（${raw.length} 个字符，最多 ${MAX_PATH_CHARS}）。请用更短的路径。`));
  }
  if (BIDI.test(raw)) {
    return fail(t(lang, `Path ${q} contains invisible text-direction characters. Use a plain file name.`, `路径 ${q} 含有不可见的文字方向控制符。请使用普通文件名。`));
  }

  const slashed = raw.replace(/\\/g, '/');
  // Drive letters (also drive-relative "C:x"), POSIX roots, UNC paths (backslashes are already slashes here) and URLs.
  if (/^[a-z]:/i.test(slashed) || slashed.startsWith('/') || /^(?:file:|[a-z][a-z0-9+.-]*:\/\/)/i.test(slashed)) {
    let hint = '';
    if (path.isAbsolute(raw)) {
      const inside = path.relative(path.resolve(root), path.resolve(raw));
      if (inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside)) {
        const rel = inside.split(path.sep).join('/');
        hint = t(lang, ` For this file that is "${rel}".`, `这个文件应写作 "${rel}"。`);
      }
    }
    return fail(
      t(lang, `Path ${q} is absolute. ${useRelative(lang, globs)}`, `路径 ${q} 是绝对路径。${useRelative(lang, globs)}`) + hint,
    );
  }
  if (PERCENT.test(slashed)) {
    return fail(t(
      lang,
      `Path ${q} contains a percent-encoded character (%2e, %2f, %5c or %00). Paths are not URL-encoded: write the characters themselves. ${useRelative(lang, globs)}`,
      `路径 ${q} 含有百分号编码（%2e、%2f、%5c 或 %00）。路径不做 URL 编码，请直接写字符本身。${useRelative(lang, globs)}`,
    ));
  }

  const segments = slashed.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) {
    const stack: string[] = [];
    let escapes = false;
    for (const s of segments) {
      if (s !== '..') stack.push(s);
      else if (stack.length > 0) stack.pop();
      else escapes = true;
    }
    if (escapes || stack.length === 0) {
      return fail(t(lang, `Path ${q} leaves the manuscript. ${useRelative(lang, globs)}`, `路径 ${q} 超出了正文范围。${useRelative(lang, globs)}`));
    }
    // Refused even when it stays inside: the kernel resolves "link/.." through the link's target,
    // so only a path without ".." means the same thing lexically and on disk.
    const clean = stack.join('/');
    return fail(t(lang, `Path ${q} contains "..". Write it without "..", as "${clean}".`, `路径 ${q} 含有 ".."。请去掉 ".."，写作 "${clean}"。`));
  }
  if (segments.length === 0) {
    return fail(t(lang, `Path ${q} names the novel folder itself, not a file. ${useRelative(lang, globs)}`, `路径 ${q} 指向小说文件夹本身，而不是文件。${useRelative(lang, globs)}`));
  }
  if (segments[0] === '~') {
    return fail(t(lang, `Path ${q} starts with "~"; home-folder paths are not available. ${useRelative(lang, globs)}`, `路径 ${q} 以 "~" 开头；不能访问主目录。${useRelative(lang, globs)}`));
  }

  for (const seg of segments) {
    if (isReservedSegment(seg)) {
      return fail(t(
        lang,
        `Path ${q} is inside "${seg}", which holds ${reservedPurpose(seg, lang)} and is never read or written by the agent. ${allowedFiles(lang, globs)}`,
        `路径 ${q} 位于 "${seg}" 中，那里是${reservedPurpose(seg, lang)}，助手从不读写。${allowedFiles(lang, globs)}`,
      ));
    }
    if (PATTERN_CHARS.test(seg)) {
      return fail(t(
        lang,
        `Path ${q} contains "*" or "?". The tools take one exact file path; call list_manuscript to see the files.`,
        `路径 ${q} 含有 "*" 或 "?"。工具只接受一个确切的文件路径；请调用 list_manuscript 查看文件。`,
      ));
    }
    const bad = NON_PORTABLE.exec(seg);
    if (bad) {
      const colon = bad[0] === ':' ? t(lang, ' (a full-width "：" is fine)', '（全角 "：" 可以使用）') : '';
      return fail(t(
        lang,
        `Path ${q} contains '${bad[0]}', which file names cannot use on every system${colon}. Remove it.`,
        `路径 ${q} 含有 '${bad[0]}'，并非所有系统的文件名都能使用${colon}。请去掉它。`,
      ));
    }
    if (EDGE_SPACE_OR_DOT.test(seg)) {
      return fail(t(
        lang,
        `The name ${quote(seg)} in path ${q} starts or ends with a space, or ends with a dot, which Windows silently drops. Remove it.`,
        `路径 ${q} 中的名称 ${quote(seg)} 以空格开头或结尾，或以点结尾，Windows 会悄悄去掉它们。请删除。`,
      ));
    }
    if (WIN_DEVICE.test(seg)) {
      return fail(t(lang, `${quote(seg)} is a reserved device name on Windows. Choose another file name.`, `${quote(seg)} 是 Windows 的保留设备名。请换一个文件名。`));
    }
    if (SHORT_NAME.test(seg)) {
      return fail(t(lang, `${quote(seg)} looks like a Windows short name (such as "GIT~1"). Use the full name without "~" and a digit.`, `${quote(seg)} 像是 Windows 短文件名（如 "GIT~1"）。请使用不含 "~数字" 的完整名称。`));
    }
    if (utf8Bytes(seg) > MAX_SEGMENT_BYTES) {
      return fail(t(lang, `The name ${quote(seg)} is too long (over ${MAX_SEGMENT_BYTES} bytes). Use a shorter file name.`, `名称 ${quote(seg)} 过长（超过 ${MAX_SEGMENT_BYTES} 字节）。请用更短的文件名。`));
    }
  }

  const rel = segments.join('/');
  if (!manuscriptOf(globs).matches(rel)) {
    const hint = rel.toLowerCase() === 'worldline.yaml'
      ? t(lang, ' The scene state is read with world_state_get.', '场景状态请用 world_state_get 读取。')
      : '';
    return fail(t(
      lang,
      `"${rel}" is not a manuscript file, so the agent cannot read or write it. ${allowedFiles(lang, globs)}${hint}`,
      `"${rel}" 不是正文文件，助手不能读写它。${allowedFiles(lang, globs)}${hint}`,
    ));
  }
  return { ok: true, rel, abs: path.join(path.resolve(root), ...segments) };
}

/** `real` as a POSIX path relative to `realRoot`, or undefined when it is not strictly inside. */
function relativeInside(realRoot: string, real: string): string | undefined {
  const r = path.relative(realRoot, real);
  if (r === '' || r === '..' || r.startsWith(`..${path.sep}`) || path.isAbsolute(r)) return undefined;
  return r.split(path.sep).join('/');
}

/**
 * What is on the disk along `rel` (already accepted by `resolveManuscriptPath`). The agent reads
 * and writes only plain files at their own path: a symlink anywhere below the novel folder is
 * refused, with the real path as a hint when the link stays inside. Missing parts are fine (they
 * get created). This is the friendly early check; `confinedFile.ts` enforces the same rules by
 * handle at the moment of reading or writing.
 */
export async function confineReal(fs: ManuscriptFs, rel: string, globs: ManuscriptSpec, lang: Lang = 'en'): Promise<ConfineCheck> {
  const realRoot = await fs.realpath('');
  if (realRoot === undefined) return fail(noRoot(lang));
  const segs = rel.split('/');
  for (let k = 1; k <= segs.length; k++) {
    const prefix = segs.slice(0, k).join('/');
    const kind = await fs.lstat(prefix);
    if (kind === undefined) break;
    if (kind === 'symlink') return fail(await linkRefusal(fs, realRoot, rel, segs, k, globs, lang));
    // A file where a folder is needed, a folder or a FIFO at `rel`: the file-system checks refuse
    // those with the precise reason.
    if (kind !== 'directory') break;
  }
  return { ok: true };
}

async function linkRefusal(fs: ManuscriptFs, realRoot: string, rel: string, segs: string[], k: number, globs: ManuscriptSpec, lang: Lang): Promise<string> {
  const link = segs.slice(0, k).join('/');
  const real = await fs.realpath(link);
  if (real === undefined) {
    return t(lang, `"${link}" is a broken link, so "${rel}" cannot be used. Choose another path.`, `"${link}" 是失效的链接，无法使用 "${rel}"。请换一个路径。`);
  }
  const realLink = relativeInside(realRoot, real);
  if (realLink === undefined) {
    return t(
      lang,
      `"${rel}" leads outside the novel folder through a link, so it cannot be read or written. ${useRelative(lang, globs)}`,
      `"${rel}" 通过链接指向小说文件夹之外，不能读写。${useRelative(lang, globs)}`,
    );
  }
  const realRel = [realLink, ...segs.slice(k)].join('/');
  if (!manuscriptOf(globs).matches(realRel)) {
    return t(
      lang,
      `"${rel}" is a link to "${realRel}", which is not a manuscript file, so it cannot be read or written. ${allowedFiles(lang, globs)}`,
      `"${rel}" 链接到 "${realRel}"，那不是正文文件，不能读写。${allowedFiles(lang, globs)}`,
    );
  }
  return t(
    lang,
    `"${link}" is a symbolic link. The agent reads and writes files only at their own path, never through a link. Use "${realRel}" instead.`,
    `"${link}" 是符号链接。助手只按文件本身的路径读写，从不经过链接。请改用 "${realRel}"。`,
  );
}

function noRoot(lang: Lang): string {
  return t(lang, 'The novel folder cannot be found on disk. Ask the novelist to reopen it.', '磁盘上找不到小说文件夹。请让作者重新打开它。');
}

function notFileText(rel: string, kind: NonFileKind, lang: Lang): string {
  if (kind === 'directory') {
    return t(lang, `"${rel}" is a folder, not a file. Call list_manuscript to see the files.`, `"${rel}" 是文件夹，不是文件。请调用 list_manuscript 查看文件。`);
  }
  const what: Record<Exclude<NonFileKind, 'directory'>, [string, string]> = {
    fifo: ['is a named pipe (FIFO), not a regular file', '是命名管道（FIFO），不是普通文件'],
    socket: ['is a socket, not a regular file', '是套接字（socket），不是普通文件'],
    device: ['is a device, not a regular file', '是设备文件，不是普通文件'],
    other: ['is not a regular file', '不是普通文件'],
  };
  const [en, zh] = what[kind];
  return t(
    lang,
    `"${rel}" ${en}, so the agent does not open it. Write to another file name, and tell the novelist about it.`,
    `"${rel}" ${zh}，助手不会打开它。请换一个文件名写，并告知作者。`,
  );
}

/** The tool error for a `ConfinementError` from the file-system checks, in the model's language. */
export function confinementText(err: ConfinementError, lang: Lang): string {
  const { rel, at } = err;
  switch (err.code) {
    case 'WL_NO_ROOT':
      return noRoot(lang);
    case 'WL_LINK':
      return t(
        lang,
        `"${at}" is a symbolic link. The agent reads and writes files only at their own path inside the novel folder, never through a link, so "${rel}" cannot be used. Call list_manuscript to see the files, or ask the novelist to replace the link with the real file.`,
        `"${at}" 是符号链接。助手只按文件在小说文件夹里的实际路径读写，从不经过链接，因此不能使用 "${rel}"。请调用 list_manuscript 查看文件，或请作者用真实文件替换该链接。`,
      );
    case 'WL_NOT_FILE':
      return notFileText(rel, err.kind ?? 'other', lang);
    case 'WL_HARD_LINK':
      return t(
        lang,
        `"${rel}" has more than one hard link; the agent only edits files that live only in the manuscript, so it was not read or written. Ask the novelist to replace it with a plain copy, or use another file.`,
        `"${rel}" 有多个硬链接；助手只编辑仅存在于正文中的文件，因此没有读写它。请作者把它换成普通副本，或改用其他文件。`,
      );
    case 'WL_MOVED':
      return t(
        lang,
        `"${at === '' ? rel : at}" was moved or replaced on disk (for example by a link) while "${rel}" was being read or written, so the agent stopped. Call read_file to see what the file holds now and try again once; if it happens again, tell the novelist.`,
        `读写 "${rel}" 时，磁盘上的 "${at === '' ? rel : at}" 被移动或替换（例如换成了链接），助手已停止。请用 read_file 查看文件当前内容后再试一次；如果再次出现，请告知作者。`,
      );
  }
}

/** Both stages in order: the lexical check, then the real-path check. */
export async function resolveAndConfine(fs: ManuscriptFs, root: string, input: string, globs: ManuscriptSpec, lang: Lang = 'en'): Promise<PathCheck> {
  const lexical = resolveManuscriptPath(root, input, globs, lang);
  if (!lexical.ok) return lexical;
  const real = await confineReal(fs, lexical.rel, globs, lang);
  return real.ok ? lexical : real;
}
