// Words the core hands to the shell: an English key the shell translates through VS Code's l10n
// (l10n/bundle.l10n.zh-cn.json), with the arguments for its {0}, {1}… The core marks its keys with
// a local `const l10n = { t: … }` so test/unit/l10n.test.ts finds them.

/** Words for the shell to translate: `message` is the English key, `args` fill its {0}, {1}… */
export interface Text {
  readonly message: string;
  readonly args: readonly (string | number)[];
  /** Already in the novelist's language (the core's own bilingual text): shown as it is. */
  readonly literal?: boolean;
}

/** The shell's translator: VS Code's l10n over a `Text` (a literal as it is). */
export type Say = (text: Text) => string;

/**
 * One of two words by a count: vscode.l10n has no plural forms, so each form is its own key
 * (the singular and the plural key, each through the l10n marker); Chinese gives both the same.
 */
export function ofCount<T>(count: number, one: T, many: T): T {
  return count === 1 ? one : many;
}
