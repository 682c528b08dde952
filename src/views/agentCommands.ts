// Palette commands for the agent: send, regenerate, variants, stop, retry, key and model.
import * as vscode from 'vscode';
import type { Views } from './registerViews';
import { saveIdOf, worldlineIdOf } from './worldlinesTree';

export function registerAgentCommands(views: Views): vscode.Disposable[] {
  const { agent, chat, checkpoints, worldlines } = views;
  const lastReply = () => chat.transcript().filter((m) => m.role === 'assistant').at(-1);
  return [
    vscode.commands.registerCommand('worldline.send', async (text?: string) => {
      if (typeof text === 'string' && text.trim()) return agent.send(text);
      await vscode.commands.executeCommand('worldline.chat.focus');
      chat.focusInput();
      return undefined;
    }),
    vscode.commands.registerCommand('worldline.regenerate', (entryId?: string) => agent.regenerate(entryId ?? lastReply()?.id)),
    vscode.commands.registerCommand('worldline.previousVariant', (entryId?: string) => {
      const id = entryId ?? lastReply()?.id;
      return id ? chat.switchVariant(id, -1) : false;
    }),
    vscode.commands.registerCommand('worldline.nextVariant', (entryId?: string) => {
      const id = entryId ?? lastReply()?.id;
      return id ? chat.switchVariant(id, 1) : false;
    }),
    vscode.commands.registerCommand('worldline.stop', () => agent.stop()),
    vscode.commands.registerCommand('worldline.retry', () => agent.retry()),
    vscode.commands.registerCommand('worldline.setApiKey', (key?: unknown, target?: unknown) =>
      agent.setApiKey(typeof key === 'string' ? key : undefined, target === 'scribe' || target === 'main' ? target : undefined)),
    vscode.commands.registerCommand('worldline.selectModel', (model?: string) => agent.selectModel(model)),
    vscode.commands.registerCommand('worldline.restoreProseOnly', (checkpointId?: string) => checkpoints.restore(checkpointId, false)),
    vscode.commands.registerCommand('worldline.restoreProseAndChat', (checkpointId?: string) => checkpoints.restore(checkpointId, true)),
    vscode.commands.registerCommand('worldline.undoRestore', () => checkpoints.undo()),
    vscode.commands.registerCommand('worldline.showTurnChanges', (checkpointId?: string, file?: string) => checkpoints.showChanges(checkpointId, file)),
    vscode.commands.registerCommand('worldline.compareWithCheckpoint', (checkpointId?: string, file?: string) => checkpoints.showChanges(checkpointId, file, 'working')),
    vscode.commands.registerCommand('worldline.rebuildCheckpoints', () => checkpoints.rebuild()),
    vscode.commands.registerCommand('worldline.compactNow', () => agent.compactNow()),
    vscode.commands.registerCommand('worldline.savePoint', (name?: string) => worldlines.savePoint(typeof name === 'string' ? name : undefined)),
    vscode.commands.registerCommand('worldline.loadSave', (arg?: unknown) => worldlines.loadSave(saveIdOf(arg))),
    vscode.commands.registerCommand('worldline.renameWorldline', (arg?: unknown, name?: string) => worldlines.renameWorldline(worldlineIdOf(arg), name)),
    vscode.commands.registerCommand('worldline.deleteSave', (arg?: unknown) => worldlines.deleteSave(saveIdOf(arg))),
    vscode.commands.registerCommand('worldline.compareSaves', (a?: unknown, b?: unknown, file?: string) => worldlines.compareSaves(saveIdOf(a), saveIdOf(b), file)),
    vscode.commands.registerCommand('worldline.exportWorldline', (arg?: unknown, target?: vscode.Uri) => worldlines.exportWorldline(saveIdOf(arg), target)),
  ];
}
