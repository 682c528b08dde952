import { strict as assert } from 'node:assert';
import { editDistance, findNearNames, NameTable } from '../../../src/continuity/names';

const spans = (t: NameTable, text: string): string[] => t.mentions(text).map((m) => `${m.spelling}>${m.name}@${m.start}`);

describe('continuity names', () => {
  it('Chinese: the longest name wins over a shorter one inside it, matches never overlap', () => {
    const t = new NameTable({ names: ['青', '青梧', '林砚'] });
    assert.deepEqual(spans(t, '青梧看着林砚，青说：'), ['青梧>青梧@0', '林砚>林砚@4', '青>青@7']);
  });

  it('aliases map to their roster name', () => {
    const t = new NameTable({ names: ['青梧'], aliases: new Map([['青梧', ['阿梧', '青姑娘']]]) });
    assert.deepEqual(spans(t, '阿梧笑了，青姑娘点头。'), ['阿梧>青梧@0', '青姑娘>青梧@5']);
    assert.ok(t.has('阿梧') && t.has('青梧') && !t.has('梧'));
  });

  it('English: whole words, own case or all caps, possessives', () => {
    const t = new NameTable({ names: ['Ann', 'Elara Vance', 'Elara'] });
    assert.deepEqual(spans(t, 'Annals of Ann. ELARA said; Elara’s hat; elara; Elara Vance came'), ['Ann>Ann@10', 'ELARA>Elara@15', 'Elara>Elara@27', 'Elara Vance>Elara Vance@47']);
    assert.deepEqual(spans(t, 'Ann说'), ['Ann>Ann@0']);
  });

  it('edit distance counts an adjacent swap as one and stops past the limit', () => {
    assert.equal(editDistance('elara', 'elarra', 2), 1);
    assert.equal(editDistance('elara', 'ealra', 2), 1);
    assert.equal(editDistance('mordecai', 'mordekai', 2), 1);
    assert.ok(editDistance('elara', 'corwin', 1) > 1);
  });

  const near = (text: string, names: string[]): string[] => {
    const known = new NameTable({ names });
    return findNearNames(text, { targets: names, known, mentions: known.mentions(text) }).map((n) => `${n.spelling}>${n.name}${n.nameLike ? '!' : ''}`);
  };

  it('a one-character slip in a Chinese name in a name-like place is found', () => {
    assert.deepEqual(near('青吾说：「走吧。」', ['青梧']), ['青吾>青梧!']);
    assert.deepEqual(near('他看了江宇一眼。江宇没有抬头。', ['江屿']), ['江宇>江屿!']);
    assert.deepEqual(near('屋里只剩下肖寒衣沉重的呼吸声。', ['肖寒意']).length, 1);
  });

  it('ordinary words one character from a name stay quiet', () => {
    assert.deepEqual(near('青年说：「走吧。」青色的伞。', ['青梧']), []);
    assert.deepEqual(near('那梧桐很高。他们说好了。', ['青梧', '他们']), []);
    // a changed surname is no sure slip (谎言 for 裴言)
    assert.deepEqual(near('「谎言说一千遍也还是谎言。」', ['裴言']).filter((s) => s.endsWith('!')), []);
  });

  it('English near names: distance 1 from 4 letters, 2 from 8; common and lower-case words are not names', () => {
    assert.deepEqual(near('Elarra said nothing.', ['Elara']), ['Elarra>Elara!']);
    assert.deepEqual(near('Then Mordekei nodded.', ['Mordecai']), ['Mordekei>Mordecai!']);
    assert.deepEqual(near('Mark my words, she said. Mara laughed.', ['Mary', 'Mara']), []);
    assert.deepEqual(near('Where is he? Were they here? The were-light.', ['Wera']), []);
    assert.deepEqual(near('Ann nodded.', ['Anne']), []); // under four letters
  });
});
