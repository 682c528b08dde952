// The codex's public API: entry files, loading a codex folder, selecting the entries a turn
// names, and rendering them into the newest-message block.
export * from './types';
export { formatCodexFile, parseCodexFile, normalizeBody, normalizeKey, normalizeKeys, nameFromPath, kindFromPath, KEY_LOGICS, MAX_CODEX_FILE_CHARS, type ParseCodexOptions, type ParseCodexResult } from './file';
export { loadCodex, MAX_CODEX_FILE_BYTES, MAX_CODEX_FILES, type CodexProblem, type CodexWarning, type LoadCodexOptions, type LoadedCodex } from './load';
export { CodexIndex, matchesAsSubstring, type SelectOptions } from './select';
export { renderCodexBlock, renderCodexEntry, CODEX_HEADERS, type RenderCodexOptions, type RenderedCodex } from './render';
