// Runs in a worker thread for tree.property.test.ts: opens a session file and calls every walk on
// every entry, so a walk that never ends (or eats the heap) fails the test by timeout or by the
// worker's memory limit instead of hanging the test run.
import { parentPort } from 'node:worker_threads';
import { isChainEntry } from '../../../src/session/entries';
import { SessionError } from '../../../src/session/errors';
import { Session } from '../../../src/session/session';

export interface WalkRequest {
  file: string;
  /** After the first round of walks: navigate to these picks (index into the loaded entries, -1 = null) and append. */
  appends: number[];
}

export interface WalkResult {
  corruptLines: number[];
  leafId: string | null;
  /** id → path from its root, for every chain entry loaded. */
  paths: Record<string, string[]>;
  afterAppends: Record<string, string[]>;
  reopened: Record<string, string[]>;
  error?: string;
}

function walkAll(s: Session): Record<string, string[]> {
  const chain = s.entries().filter(isChainEntry);
  const ids = chain.map((e) => e.id);
  const paths: Record<string, string[]> = {};
  for (const id of ids) {
    const p = s.path(id).map((e) => e.id);
    paths[id] = p;
    s.context(id);
    s.contextWithSummary(id);
    s.lastOnPath('user', id);
    s.lastOnPath('state', id);
    s.variants(id);
    const tip = s.tipOf(id);
    if (!s.isAncestorOrSelf(id, tip)) throw new Error(`tipOf(${id}) = ${tip} is not in its subtree`);
    for (const other of ids) s.isAncestorOrSelf(other, id);
    s.isAncestorOrSelf(null, id);
    s.isAncestorOrSelf(id, null);
    s.isOnPath(id);
    try {
      const start = s.regenerateTarget(id);
      if (!p.includes(start)) throw new Error(`regenerateTarget(${id}) = ${start} is not on its path`);
    } catch (e) {
      if (!(e instanceof SessionError && e.code === 'no-turn')) throw e;
    }
  }
  s.children(null);
  s.path();
  s.context();
  return paths;
}

async function run(req: WalkRequest): Promise<WalkResult> {
  const { session, report } = await Session.open(req.file);
  const result: WalkResult = {
    corruptLines: report.corruptLines.map((c) => c.line),
    leafId: session.leafId,
    paths: walkAll(session),
    afterAppends: {},
    reopened: {},
  };
  const chain = session.entries().filter(isChainEntry);
  for (const pick of req.appends) {
    await session.navigate(pick < 0 || chain.length === 0 ? null : chain[pick % chain.length].id);
    await session.append({ type: 'user', text: `新 ${pick}` });
  }
  result.afterAppends = walkAll(session);
  await session.close();
  const again = await Session.open(req.file);
  result.reopened = walkAll(again.session);
  await again.session.close();
  return result;
}

parentPort?.on('message', (req: WalkRequest) => {
  run(req).then(
    (r) => parentPort?.postMessage(r),
    (e: unknown) => parentPort?.postMessage({ error: e instanceof Error ? e.stack ?? e.message : String(e) }),
  );
});
