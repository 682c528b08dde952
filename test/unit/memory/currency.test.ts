// Memory follows the novelist's edits: a reply edited after it was archived is recalled in its new
// words, never its old ones; a hidden message is never recalled; prose rows (from tool calls)
// survive an edit of the reply text.
import { strict as assert } from 'node:assert';
import { archiveEntries } from '../../../src/memory/archive';
import { currentRowFilter, editedSinceArchive } from '../../../src/memory/currency';
import { localEmbedder } from '../../../src/memory/embed';
import { runMemorySearch } from '../../../src/memory/memoryTool';
import { branchIdsOf, recallForTurn } from '../../../src/memory/recall';
import { sessionTextView } from '../../../src/memory/types';
import { isChainEntry, type ChainEntry } from '../../../src/session/entries';
import type { Session } from '../../../src/session/session';
import { cleanup, newSession, openStore, tempDir, turn } from './helpers';

function entryOf(s: Session): (id: string) => ChainEntry | undefined {
  return (id) => {
    const e = s.get(id);
    return e !== undefined && isChainEntry(e) ? e : undefined;
  };
}

describe('memory/edits after archiving', () => {
  afterEach(cleanup);

  async function archivedStory() {
    const dir = tempDir();
    const s = await newSession(dir);
    const store = await openStore(dir);
    const view = sessionTextView(s);
    const t1 = await turn(s, '写青梧把信物交给林砚', '雨夜里青梧取下腕上的银镯，放进林砚掌心。', '青梧把那只刻着梅花的银镯交给了林砚，叮嘱他去江南找沈舟。');
    const t2 = await turn(s, '写林砚在渡口等船', '渡口的灯笼在雨里晃，林砚攥着什么，一言不发。', '林砚在渡口等了一夜，船始终没有来。');
    const archived = await archiveEntries({ store, embedder: localEmbedder() }, { entries: s.path(), view });
    assert.equal(archived.ok, true);
    return { s, store, view, t1, t2 };
  }

  it('an edited reply is recalled in its new words, never its old ones', async () => {
    const { s, store, view, t1 } = await archivedStory();
    const recallText = async (filtered: boolean): Promise<string> => {
      const r = await recallForTurn({ memory: store, embedder: localEmbedder() }, {
        instruction: '青梧交给林砚的信物是什么',
        branchIds: branchIdsOf(s.path()),
        lang: 'zh',
        ...(filtered ? { isCurrent: currentRowFilter(entryOf(s), view) } : {}),
      });
      assert.ok(r.ok);
      return r.value.block;
    };
    assert.match(await recallText(true), /银镯/);

    await s.appendSide({ type: 'edit', targetId: t1.reply.id, text: '青梧把那块缺了一角的玉佩交给了林砚，叮嘱他去江南找沈舟。' });
    // Without the filter the old words would still come back: the row is on disk and on the branch.
    assert.match(await recallText(false), /刻着梅花的银镯/);
    const before = await recallText(true);
    assert.doesNotMatch(before, /刻着梅花的银镯/);

    // The edited message lies before the summary (nothing is visible here): archived again.
    const edited = editedSinceArchive(s.path(), (id) => s.sideFor(id, 'edit') !== undefined, new Set());
    assert.deepEqual(edited.map((e) => e.id), [t1.reply.id]);
    const again = await archiveEntries({ store, embedder: localEmbedder() }, { entries: edited, view });
    assert.ok(again.ok);
    assert.equal(again.value.added, 1);
    const after = await recallText(true);
    assert.match(after, /缺了一角的玉佩/);
    assert.doesNotMatch(after, /刻着梅花的银镯/);
    // The prose this reply wrote (tool-call arguments) is untouched by the edit and stays.
    assert.match(after, /腕上的银镯/);

    // memory_search obeys the same filter.
    const found = await runMemorySearch(
      { memory: store, embedder: localEmbedder(), branchIds: branchIdsOf(s.path()), lang: 'zh', isCurrent: currentRowFilter(entryOf(s), view) },
      JSON.stringify({ query: '刻着梅花的银镯', k: 12 }),
    );
    assert.doesNotMatch(found.result, /刻着梅花/);
  });

  it('a hidden message is never recalled, its prose included; unhiding brings it back', async () => {
    const { s, store, view, t2 } = await archivedStory();
    const filter = () => currentRowFilter(entryOf(s), view);
    const rowsOf = (id: string) => store.rows().filter((r) => r.nodeId === id);
    assert.ok(rowsOf(t2.reply.id).length >= 2, 'the reply and its prose were archived');
    await s.appendSide({ type: 'hide', targetId: t2.reply.id, hidden: true });
    assert.deepEqual(rowsOf(t2.reply.id).map(filter()), rowsOf(t2.reply.id).map(() => false));
    await s.appendSide({ type: 'hide', targetId: t2.reply.id, hidden: false });
    assert.deepEqual(rowsOf(t2.reply.id).map(filter()), rowsOf(t2.reply.id).map(() => true));
  });

  it('only edited instructions and replies outside the visible context are archived again', async () => {
    const { s, t1, t2 } = await archivedStory();
    await s.appendSide({ type: 'edit', targetId: t1.user.id, text: '写青梧把玉佩交给林砚' });
    await s.appendSide({ type: 'edit', targetId: t2.reply.id, text: '林砚等到天亮。' });
    const isEdited = (id: string) => s.sideFor(id, 'edit') !== undefined;
    assert.deepEqual(editedSinceArchive(s.path(), isEdited, new Set()).map((e) => e.id), [t1.user.id, t2.reply.id]);
    assert.deepEqual(editedSinceArchive(s.path(), isEdited, new Set([t2.reply.id])).map((e) => e.id), [t1.user.id]);
  });
});
