// Chunking: Chinese sentence ends, sizes, overlap, and the one-entry-per-chunk rule.
import { strict as assert } from 'node:assert';
import { chunkSources, chunkText, splitSentences } from '../../../src/memory/chunk';
import { storySources } from '../../../src/memory/sources';
import { RAW_VIEW } from '../../../src/memory/types';
import { pathOfTurns, rng } from './helpers';

const PIECES = ['雨越下越大，屋檐下的灯笼被风吹得东摇西晃。', '「你还回来吗？」青梧问。', '林砚没有回答，只把斗笠压低了些！', '渡口的船已经走了……', '他想，明天一早再说吧；反正也不急。', '沈舟在对岸点起了一盏灯。\n'];

function story(sentences: number, seed = 1): string {
  const r = rng(seed);
  let s = '';
  for (let i = 0; i < sentences; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

describe('memory/chunk', () => {
  it('splits after 。！？… with closing quotes, and at line breaks', () => {
    assert.deepEqual(splitSentences('他说：「走吧。」她没动。\n第二段！真的？'), ['他说：「走吧。」', '她没动。\n', '第二段！', '真的？']);
    assert.deepEqual(splitSentences('He left. She stayed!'), ['He left. ', 'She stayed!']);
    assert.deepEqual(splitSentences('没有标点的一句'), ['没有标点的一句']);
  });

  it('packs sentences to about the target size, never over the maximum, and loses nothing', () => {
    const text = story(200);
    const chunks = chunkText(text);
    assert.ok(chunks.length > 5);
    for (const c of chunks) assert.ok(c.length <= 500, `chunk of ${c.length}`);
    for (const c of chunks.slice(0, -1)) assert.ok(c.length >= 250, `chunk of ${c.length} is too small`);
    for (const s of splitSentences(text)) {
      const t = s.trim();
      if (t.length > 0) assert.ok(chunks.some((c) => c.includes(t)), `lost: ${t}`);
    }
  });

  it('the next chunk repeats the previous chunk’s last short sentence', () => {
    const chunks = chunkText(story(100, 7), { target: 120, max: 200, overlap: 40 });
    let overlaps = 0;
    for (let i = 1; i < chunks.length; i++) {
      const prev = splitSentences(chunks[i - 1] as string);
      const last = (prev[prev.length - 1] as string).trim();
      if (last.length <= 40 && (chunks[i] as string).startsWith(last)) overlaps++;
    }
    assert.ok(overlaps >= chunks.length - 2, `${overlaps} overlaps in ${chunks.length} chunks`);
  });

  it('cuts an over-long sentence at a comma when it can, else at the maximum', () => {
    const long = `${'字'.repeat(300)}，${'词'.repeat(400)}`;
    const chunks = chunkText(long, { target: 400, max: 500 });
    assert.ok(chunks.every((c) => c.length <= 500));
    assert.ok((chunks[0] as string).endsWith('，'));
    assert.equal(chunks.join('').replace(/，/g, '').length, 700);
    assert.deepEqual(chunkText('好的。'), [], 'too short to be worth recalling');
  });

  it('each chunk comes from exactly one entry and carries its id', () => {
    const sources = storySources(pathOfTurns(3, 900), RAW_VIEW);
    const chunks = chunkSources(sources);
    assert.ok(chunks.length >= 6);
    for (const c of chunks) {
      const src = sources.find((s) => s.nodeId === c.nodeId && s.role === c.role);
      assert.ok(src && src.text.includes(c.text), 'the chunk text lies inside its own source');
    }
  });

  it('story text: instructions, replies and prose from tool-call arguments; no tool results, no hidden', () => {
    const path = pathOfTurns(1, 30);
    const sources = storySources(path, RAW_VIEW);
    assert.deepEqual(
      sources.map((s) => [s.nodeId, s.role]),
      [
        ['e0', 'user'],
        ['e1', 'assistant'],
        ['e1', 'prose'],
      ],
    );
    assert.deepEqual(storySources(path, { ...RAW_VIEW, isHidden: (id) => id === 'e1' }).map((s) => s.nodeId), ['e0']);
  });
});
