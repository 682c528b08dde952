// The codex folder (worldline.yaml `codex:`, default `codex`): lore files of the book, one
// Markdown file per entry (DESIGN.md "Codex"). Decided here, once, next to the manuscript matcher:
//  - the codex is NOT manuscript: the word count, the unsaved-editor checks and the agent's write
//    tools leave it out (the agent writes it only when the novelist allows, src/agent/tools.ts);
//  - the checkpoints track manuscript ∪ the codex's *.md, so the lore follows the branch.
import { isReservedPath, isReservedSegment, PROJECT_FILE, type ManuscriptMatcher } from './manuscript';

type Lang = 'zh' | 'en';

export const DEFAULT_CODEX_FOLDER = 'codex';

const t = (lang: Lang, en: string, zh: string): string => (lang === 'zh' ? zh : en);

/**
 * The folder as written in worldline.yaml, checked: a plain relative folder inside the book, no
 * glob characters, not reserved. Returns the POSIX folder (no trailing "/") or a problem.
 */
export function checkCodexFolder(raw: unknown, lang: Lang = 'en'): { folder: string } | { problem: string } {
  const bad = (en: string, zh: string) => ({ problem: t(lang, `"codex" ${en}; the default "${DEFAULT_CODEX_FOLDER}" is used.`, `「codex」${zh}；先用默认值「${DEFAULT_CODEX_FOLDER}」。`) });
  if (typeof raw !== 'string' || raw.trim() === '') return bad('must be a folder of the book such as "codex" or "lore/codex"', '应为小说里的一个文件夹，如「codex」或「lore/codex」');
  const p = raw.trim().replace(/\\/g, '/').replace(/\/+$/, '');
  if (p.length > 200) return bad('is too long', '太长');
  if (/[\u0000-\u001f\u007f]/u.test(p)) return bad('contains control characters', '含有控制字符');
  if (p.startsWith('/') || p.startsWith('~') || /^[a-z]:/i.test(p) || /^[a-z][a-z0-9+.-]*:/i.test(p)) return bad('is an absolute path; write it relative to the book folder', '是绝对路径；请写相对于小说文件夹的路径');
  if (/[*?[\]{}()!:]/.test(p)) return bad('names one folder, not a pattern (no *, ?, [ ], { }, !, :)', '只能是一个文件夹，不能是规则（不能含 *、?、[ ]、{ }、!、:）');
  const segs = p.split('/').filter((s) => s !== '.');
  if (segs.includes('..')) return bad('contains "..", which leaves the book folder', '含有「..」，会超出小说文件夹');
  // "~" means the home folder to a shell; a folder of that name would only confuse.
  if (segs.some((s) => s.startsWith('~'))) return bad('is not a folder of the book ("~" is the home folder); write it relative to the book folder', '不是小说里的文件夹（「~」是主目录）；请写相对于小说文件夹的路径');
  if (segs.length === 0 || segs.some((s) => s === '')) return bad('must name a folder inside the book', '应指向小说里的一个文件夹');
  if (segs.some((s) => isReservedSegment(s) || s.startsWith('.')) || (segs.length === 1 && segs[0]?.toLowerCase() === PROJECT_FILE)) {
    return bad('names a folder that is never part of the book (worldline.yaml, .git, .vscode, .worldline, node_modules, or a hidden folder)', '指向永远不属于小说的位置（worldline.yaml、.git、.vscode、.worldline、node_modules 或隐藏文件夹）');
  }
  return { folder: segs.join('/') };
}

/** True when `rel` (POSIX, book-relative) is the codex folder or below it; letter case ignored, as the matcher does. */
export function isInCodexFolder(folder: string, rel: string): boolean {
  const f = folder.toLowerCase();
  const r = rel.toLowerCase();
  return r === f || r.startsWith(`${f}/`);
}

/** True when `rel` is a codex entry file: a `.md` file below the folder, never a reserved or hidden path. */
export function isCodexFile(folder: string, rel: string): boolean {
  if (isReservedPath(rel) || !isInCodexFolder(folder, rel) || rel.length === folder.length) return false;
  return /\.md$/i.test(rel) && !rel.slice(folder.length + 1).split('/').some((s) => s.startsWith('.'));
}

/** The manuscript without the codex folder: what the word count, unsaved-editor checks and write tools ask. */
export function manuscriptWithoutCodex(manuscript: ManuscriptMatcher, folder: string): ManuscriptMatcher {
  return Object.freeze({
    globs: manuscript.globs,
    matches: (rel: string): boolean => manuscript.matches(rel) && !isInCodexFolder(folder, rel),
    mayContain: (dir: string): boolean => manuscript.mayContain(dir) && !isInCodexFolder(folder, dir),
  });
}

/** What the checkpoints track: the manuscript and the codex's entry files. */
export function trackedMatcher(manuscript: ManuscriptMatcher, folder: string): ManuscriptMatcher {
  const above = (dir: string): boolean => dir === '' || isInCodexFolder(dir, folder);
  return Object.freeze({
    globs: Object.freeze([...manuscript.globs, `${folder}/**/*.md`]),
    matches: (rel: string): boolean => manuscript.matches(rel) || isCodexFile(folder, rel),
    mayContain: (dir: string): boolean => manuscript.mayContain(dir) || above(dir) || (isInCodexFolder(folder, dir) && !isReservedPath(dir) && !dir.slice(folder.length + 1).split('/').some((s) => s.startsWith('.'))),
  });
}
