// Palette commands for the Story's verbs (send, regenerate, variants, stop, retry, restores, undo,
// save points, compaction), the checkpoints' views, and the key and model.
import * as vscode from 'vscode';
import type { Story } from '../story';
import { turnToActOn, type TurnAction } from '../story/turnPicks';
import type { Views } from './registerViews';
import { isKeyRole, selectModel, setApiKey } from './modelCommands';
import { vscodePrompter } from './prompter';
import { saveIdOf, worldlineIdOf } from './worldlinesTree';
import { isExportFormat } from '../worldline/exporters/formats';

export function registerAgentCommands(views: Views): vscode.Disposable[] {
  const { stories, chat, checkpoints, worldlines, keys } = views;
  const lastReply = () => chat.transcript().filter((m) => m.role === 'assistant').at(-1);
  /** A verb on the open session's Story; nothing without a session. */
  const onStory = <T>(verb: (story: Story) => Promise<T> | T) => {
    const story = stories.current();
    return story ? verb(story) : undefined;
  };
  const variant = (delta: number) => (entryId?: string) => {
    const id = entryId ?? lastReply()?.id;
    return id ? onStory((s) => s.switchVariant(id, delta)) ?? false : false;
  };
  /** A checkpoint verb on the turn its caller named (the Chat's buttons), else the one picked (src/story/turnPicks.ts). */
  const onTurn = <T>(action: TurnAction, verb: (checkpointId: string | undefined, file?: string) => T) => async (arg?: unknown, file?: unknown) => {
    const target = await turnToActOn(arg, stories.current(), action, { prompter: vscodePrompter });
    return target ? verb(target.checkpointEntryId, typeof file === 'string' ? file : undefined) : undefined;
  };
  return [
    vscode.commands.registerCommand('worldline.send', async (text?: string) => {
      if (typeof text === 'string' && text.trim()) return stories.send(text);
      await vscode.commands.executeCommand('worldline.chat.focus');
      chat.focusInput();
      return undefined;
    }),
    vscode.commands.registerCommand('worldline.regenerate', (entryId?: string) => stories.regenerate(entryId ?? lastReply()?.id)),
    vscode.commands.registerCommand('worldline.previousVariant', variant(-1)),
    vscode.commands.registerCommand('worldline.nextVariant', variant(1)),
    vscode.commands.registerCommand('worldline.stop', () => onStory((s) => s.stop()) ?? false),
    vscode.commands.registerCommand('worldline.retry', () => onStory((s) => s.retry())),
    vscode.commands.registerCommand('worldline.setApiKey', async (key?: unknown, target?: unknown) => {
      const set = await setApiKey(keys, typeof key === 'string' ? key : undefined, isKeyRole(target) ? target : undefined);
      if (set) stories.current()?.clearNotice();
      return set;
    }),
    vscode.commands.registerCommand('worldline.selectModel', async (model?: string) => {
      const chosen = await selectModel(keys, model);
      if (chosen) stories.current()?.clearNotice();
      return chosen;
    }),
    vscode.commands.registerCommand('worldline.restoreProseOnly', onTurn('restoreProse', (id) => onStory((s) => s.restoreProse(id)))),
    vscode.commands.registerCommand('worldline.restoreProseAndChat', onTurn('restoreProseAndChat', (id) => onStory((s) => s.restoreProseAndChat(id)))),
    vscode.commands.registerCommand('worldline.undoRestore', () => onStory((s) => s.undoLastRestore())),
    vscode.commands.registerCommand('worldline.showTurnChanges', onTurn('showChanges', (id, file) => checkpoints.showChanges(id, file))),
    vscode.commands.registerCommand('worldline.compareWithCheckpoint', onTurn('compare', (id, file) => checkpoints.showChanges(id, file, 'working'))),
    vscode.commands.registerCommand('worldline.rebuildCheckpoints', async () => {
      const rebuilt = await checkpoints.rebuild();
      if (rebuilt) stories.current()?.forgetUndo(); // the new store has no undo stack
      return rebuilt;
    }),
    vscode.commands.registerCommand('worldline.compactNow', () => onStory((s) => s.compactNow())),
    vscode.commands.registerCommand('worldline.savePoint', (name?: string) => worldlines.savePoint(typeof name === 'string' ? name : undefined)),
    vscode.commands.registerCommand('worldline.loadSave', (arg?: unknown) => worldlines.loadSave(saveIdOf(arg))),
    vscode.commands.registerCommand('worldline.renameWorldline', (arg?: unknown, name?: string) => worldlines.renameWorldline(worldlineIdOf(arg), name)),
    vscode.commands.registerCommand('worldline.deleteSave', (arg?: unknown) => worldlines.deleteSave(saveIdOf(arg))),
    vscode.commands.registerCommand('worldline.compareSaves', (a?: unknown, b?: unknown, file?: string) => worldlines.compareSaves(saveIdOf(a), saveIdOf(b), file)),
    vscode.commands.registerCommand('worldline.exportWorldline', (arg?: unknown, target?: vscode.Uri) => worldlines.exportWorldline(saveIdOf(arg), target)),
    vscode.commands.registerCommand('worldline.exportWorldlineAs', (arg?: unknown, format?: unknown, target?: vscode.Uri) => worldlines.exportWorldlineAs(saveIdOf(arg), isExportFormat(format) ? format : undefined, target)),
  ];
}
