// Worldline's context keys in VS Code: the values src/protocol/contextKeys.ts decides, set only when
// one changes, once per burst of events (a turn fires many). registerViews says when to update.
import * as vscode from 'vscode';
import { ContextKeyState, contextValues, type ContextInputs } from '../protocol/contextKeys';
import { Coalescer } from '../protocol/coalesce';
import type { Log } from './log';
import { setContext } from './shellPorts';

export class ContextKeys implements vscode.Disposable {
  private readonly state = new ContextKeyState();
  private readonly updates: Coalescer;

  constructor(inputs: () => Promise<ContextInputs>, log: Log) {
    this.updates = new Coalescer({
      run: async () => {
        for (const [key, value] of this.state.changes(contextValues(await inputs()))) await setContext(key, value);
      },
      onError: (err) => {
        this.state.forget();
        log.warn(`context keys: ${String(err)}`);
      },
    });
    this.updates.request();
  }

  /** Something they depend on changed. */
  update(): void {
    this.updates.request();
  }

  dispose(): void {
    this.updates.dispose();
  }
}
