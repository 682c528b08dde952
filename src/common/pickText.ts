// Text of the novelist's or the model's inside a quick pick item: VS Code draws `$(name)` there as
// an icon, so a name or an instruction holding one is escaped (`\$(name)` is drawn as the text).
// Only the icon syntax is touched: any other `$(` shows as it is, so escaping it would add a `\`.

const ICON = /\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g;

/** `text` as a quick pick shows it, letter for letter. */
export function pickText(text: string): string {
  return text.replace(ICON, '\\$$($1)');
}
