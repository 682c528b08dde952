// The Prompter port (src/protocol/prompter.ts) in VS Code: quick pick, input box, notifications,
// every Text translated through VS Code's l10n.
import * as vscode from 'vscode';
import type { Text } from '../common/text';
import type { AskOptions, Level, PickItem, PickOptions, Prompter } from '../protocol/prompter';
import { translate } from './notices';

export const vscodePrompter: Prompter = {
  async pick<T>(items: readonly PickItem<T>[], o: PickOptions): Promise<T | undefined> {
    const shown = items.map((i) => ({
      label: translate(i.label),
      ...(i.description ? { description: translate(i.description) } : {}),
      ...(i.detail ? { detail: translate(i.detail) } : {}),
      value: i.value,
    }));
    const picked = await vscode.window.showQuickPick(shown, {
      title: translate(o.title),
      ...(o.placeHolder ? { placeHolder: translate(o.placeHolder) } : {}),
      matchOnDescription: o.matchOnDescription ?? false,
      matchOnDetail: o.matchOnDetail ?? false,
    });
    return picked?.value;
  },
  async ask(o: AskOptions): Promise<string | undefined> {
    const validate = o.validate;
    return vscode.window.showInputBox({
      title: translate(o.title),
      ...(o.prompt ? { prompt: translate(o.prompt) } : {}),
      ...(o.placeHolder ? { placeHolder: translate(o.placeHolder) } : {}),
      ...(o.value !== undefined ? { value: o.value } : {}),
      password: o.password ?? false,
      ignoreFocusOut: o.ignoreFocusOut ?? false,
      ...(validate ? { validateInput: (v: string) => { const why = validate(v); return why ? translate(why) : undefined; } } : {}),
    });
  },
  async notify(level: Level, text: Text, ...buttons: Text[]): Promise<Text | undefined> {
    const words = buttons.map(translate);
    const show = level === 'info' ? vscode.window.showInformationMessage : level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
    const picked = await show(translate(text), ...words);
    return picked === undefined ? undefined : buttons[words.indexOf(picked)];
  },
};
