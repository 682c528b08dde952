// One output channel for the whole extension. Messages never contain API keys: callers pass
// text that has already been through redact().
import * as vscode from 'vscode';

export interface Log {
  /** Shown only when the novelist (or a test) sets the Worldline log level to Debug. */
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  show(): void;
}

export function createLog(): Log & vscode.Disposable {
  const channel = vscode.window.createOutputChannel('Worldline', { log: true });
  return {
    debug: (m) => channel.debug(redact(m)),
    info: (m) => channel.info(redact(m)),
    warn: (m) => channel.warn(redact(m)),
    error: (m) => channel.error(redact(m)),
    show: () => channel.show(true),
    dispose: () => channel.dispose(),
  };
}

/** Masks anything that looks like a bearer token or an API key. */
export function redact(text: string): string {
  return text
    .replace(/(Bearer\s+)[A-Za-z0-9._\-]+/gi, '$1***')
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_\-]{8,}/g, '$1-***');
}
