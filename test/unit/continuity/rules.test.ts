import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { dayOf, findCandidates, parseItem, timeOf } from '../../../src/continuity/rules';
import type { Candidate, CheckInput, FindingType } from '../../../src/continuity/types';
import { runs } from '../long-mode';
import { ch, enScene, input, scene, zhScene } from './helpers';

const found = (i: CheckInput): string[] => findCandidates(i).map((c) => `${c.type}/${c.subject}/${c.confidence}`);
const of = (i: CheckInput, type: FindingType): Candidate[] => findCandidates(i).filter((c) => c.type === type);
const high = (i: CheckInput, type: FindingType): Candidate[] => of(i, type).filter((c) => c.confidence === 'high');

describe('continuity rules', () => {
  it('every candidate quotes its sentence exactly, at its offset, in its file', () => {
    const i = input('雨下着。沈舟推开窗，低声说：「雨要停了。」白露点了点头。', 'zh');
    const cs = findCandidates(i);
    assert.ok(cs.length >= 2);
    for (const c of cs) {
      assert.equal(c.file, 'ch1.md');
      assert.equal(i.prose[0]!.text.slice(c.offset, c.offset + c.quote.length), c.quote);
    }
  });

  describe('departed-acts', () => {
    it('a character who left speaks: before the quote, after it, in English both ways', () => {
      assert.deepEqual(found(input('沈舟低声说：「雨要停了。」', 'zh')), ['departed-acts/沈舟/high']);
      assert.deepEqual(found(input('「雨要停了。」沈舟道。', 'zh')), ['departed-acts/沈舟/high']);
      assert.deepEqual(found(input('"We should go," Corwin said.', 'en')), ['departed-acts/Corwin/high']);
      assert.deepEqual(found(input('"We should go," said Corwin.', 'en')), ['departed-acts/Corwin/high']);
      assert.deepEqual(found(input('Corwin got up and put another log on the fire.', 'en')), ['departed-acts/Corwin/high']);
    });

    it('one who leaves this turn and then acts again', () => {
      const after = enScene();
      delete (after.characters as Record<string, unknown>)['Elara'];
      const i = input('"I\'ll go on ahead," Elara said, and stepped out into the dark.\n\nLater Elara said from beside the hearth, "Think."', 'en', { after });
      assert.deepEqual(found(i), ['departed-acts/Elara/high']);
    });

    it('stays quiet: only thought of, a memory, an arrival written and recorded, a quote about them', () => {
      assert.deepEqual(found(input('她想起了沈舟。', 'zh')), []);
      assert.deepEqual(found(input('她想起沈舟笑着的样子。', 'zh')), []);
      assert.deepEqual(found(input('She thought of Corwin.', 'en')), []);
      assert.deepEqual(found(input('「沈舟说过他会回来。」林砚道。', 'zh')).filter((s) => s.includes('沈舟')), []);
      const after = zhScene();
      after.characters['沈舟'] = ch('茶馆');
      assert.deepEqual(found(input('门开了，沈舟走了进来。「我回来了。」沈舟说。', 'zh', { after })), []);
      const afterEn = enScene();
      afterEn.characters['Corwin'] = ch('the inn');
      assert.deepEqual(found(input('Corwin walked in and sat down. "I am back," Corwin said.', 'en', { after: afterEn })), []);
    });

    it('a memory nearby makes it low, never high', () => {
      assert.deepEqual(high(input('那年冬天，沈舟说：「等我回来。」', 'zh'), 'departed-acts'), []);
      assert.deepEqual(high(input('She remembered the night Corwin said, "Wait for me."', 'en'), 'departed-acts'), []);
    });
  });

  describe('who acts', () => {
    it('a name opening a clause with a verb-like character after it acts, less surely (塞拉斯听完)', () => {
      assert.deepEqual(found(input('他说完了。沈舟沉吟良久，没再追问。', 'zh')), ['departed-acts/沈舟/medium']);
      assert.deepEqual(found(input('沈舟的信还在桌上。', 'zh')), []);
      assert.deepEqual(found(input('沈舟不在这里。', 'zh')), []);
    });

    it('English: any past-tense verb after the name, but not died or had', () => {
      assert.deepEqual(found(input('Corwin cut in.', 'en')), ['departed-acts/Corwin/high']);
      assert.deepEqual(found(input('Corwin patted her shoulder.', 'en')), ['departed-acts/Corwin/high']);
      assert.deepEqual(found(input('Ever since Tom died, the inn was quiet.', 'en')), []);
      assert.deepEqual(found(input('Corwin had been a good man.', 'en')), []);
      assert.deepEqual(found(input("Corwin's voice cut the silence.", 'en')), ['departed-acts/Corwin/medium']);
    });

    it('an arrival said aloud counts as written; butting into a talk is no arrival', () => {
      const after = zhScene();
      after.characters['沈舟'] = ch('茶馆');
      assert.deepEqual(found(input('「我回来了。」沈舟说着，关上了门。', 'zh', { after })), []);
      assert.deepEqual(found(input('林砚正说着，青梧插了进来：「小声点。」', 'zh')).map((s) => s.split('/')[2]), ['high']);
    });
  });

  describe('two-places', () => {
    it('someone recorded elsewhere acts here', () => {
      assert.deepEqual(found(input('青梧放下茶杯，看着林砚。', 'zh')), ['two-places/青梧/high']);
      assert.deepEqual(found(input('Mira nodded slowly.', 'en')), ['two-places/Mira/high']);
    });

    it('stays quiet or low on the phone, in a letter, after an arrival the state records', () => {
      assert.deepEqual(high(input('电话那头，青梧说：「我在渡口。」', 'zh'), 'two-places'), []);
      assert.deepEqual(high(input('On the phone, Mira said, "I am at the docks."', 'en'), 'two-places'), []);
      assert.deepEqual(high(input('信里，青梧写道：「一切都好。」', 'zh'), 'two-places'), []);
      const after = enScene();
      after.characters['Mira'] = ch('the inn');
      assert.deepEqual(found(input('The door opened and Mira came in. Mira nodded.', 'en', { after })), []);
    });

    it('an act told at the place they are recorded is not in this scene', () => {
      assert.deepEqual(high(input('Mira waited at the docks, and Elara knew it.', 'en'), 'two-places'), []);
      assert.deepEqual(high(input('青梧在渡口等着。', 'zh'), 'two-places'), []);
    });

    it('someone present before who leaves this turn may act before leaving', () => {
      const after = zhScene();
      after.characters['林砚'] = ch('渡口');
      assert.deepEqual(found(input('林砚放下茶杯，起身离开了茶馆。', 'zh', { after })), []);
    });
  });

  describe('dead-acts', () => {
    it('a dead character acts', () => {
      assert.deepEqual(found(input('白露点了点头。', 'zh')), ['dead-acts/白露/high']);
      assert.deepEqual(found(input('Tom smiled.', 'en')), ['dead-acts/Tom/high']);
    });

    it('reads death in notes: 死于, 尸身, died', () => {
      const before = zhScene();
      before.characters['林砚'] = ch('茶馆', '', '林砚死于坠崖，尸身刚抬回来');
      assert.deepEqual(found(input('林砚点了点头。', 'zh', { before, after: before })), ['dead-acts/林砚/high']);
    });

    it('stays quiet or low: a body lying still, a dream, a memory, killing someone else is not dying', () => {
      assert.deepEqual(found(input('白露静静地躺在那里，再也不会开口了。', 'zh')), []);
      assert.deepEqual(high(input('梦里，白露笑着说：「别怕。」', 'zh'), 'dead-acts'), []);
      assert.deepEqual(high(input('He dreamed that Tom smiled at him.', 'en'), 'dead-acts'), []);
      const before = zhScene();
      before.characters['林砚'] = ch('茶馆', '', '当年杀死了山匪');
      assert.deepEqual(found(input('林砚点了点头。', 'zh', { before, after: before })), []);
    });

    it('died this turn: acts are low (they may come before the death)', () => {
      const after = enScene();
      after.characters['Elara'] = ch('the inn', 'dead');
      assert.deepEqual(found(input('Elara smiled.', 'en', { after })), ['dead-acts/Elara/low']);
    });
  });

  describe('two-holders', () => {
    it('parses items with the holder inside', () => {
      assert.deepEqual(parseItem('黄铜怀表（青梧持有）', ['青梧', '青']), { item: '黄铜怀表', holder: '青梧', raw: '黄铜怀表（青梧持有）' });
      assert.deepEqual(parseItem('brass watch (held by Elara)', ['Elara']), { item: 'brass watch', holder: 'Elara', raw: 'brass watch (held by Elara)' });
      assert.equal(parseItem('lantern (held by Old Man)', []).holder, 'Old Man');
      assert.equal(parseItem('a plain rope', []).holder, undefined);
    });

    it('another character takes out or holds the item with no hand-over', () => {
      assert.deepEqual(high(input('林砚掏出黄铜怀表，看了一眼。', 'zh'), 'two-holders').map((c) => c.expected), ['青梧']);
      assert.deepEqual(high(input('Mira pulled out the brass watch.', 'en'), 'two-holders').map((c) => c.subject), ['brass watch']);
      assert.equal(of(input('黄铜怀表在林砚手里转了一圈。', 'zh'), 'two-holders').length, 1);
    });

    it('stays quiet after a written hand-over, and follows the new holder', () => {
      assert.deepEqual(of(input('青梧把怀表递给林砚。林砚握着怀表，没有说话。', 'zh'), 'two-holders'), []);
      assert.deepEqual(of(input('Elara handed the watch to Mira. Mira held the watch up to the light.', 'en'), 'two-holders'), []);
      assert.deepEqual(of(input('林砚看着青梧手里的怀表。', 'zh'), 'two-holders'), []);
    });

    it('a hand-over by someone who never had it is flagged, even when the receiver then catches it', () => {
      assert.equal(of(input('林砚把黄铜怀表递给了白露。', 'zh'), 'two-holders').length, 1);
      assert.equal(of(input('「拿去。」林砚把黄铜怀表抛给了白露，白露一把接住。', 'zh'), 'two-holders').length, 1);
    });

    it('putting the item into someone\'s hands is a hand-over to them', () => {
      assert.deepEqual(of(input('Elara pressed the brass watch into Mira\'s hands. Mira pocketed the watch.', 'en'), 'two-holders'), []);
      assert.deepEqual(of(input('Elara shoved the brass watch into Mira\'s hands. Mira pocketed the watch.', 'en'), 'two-holders'), []);
      assert.deepEqual(of(input('青梧把黄铜怀表往林砚手里一塞。林砚握着怀表。', 'zh'), 'two-holders'), []);
    });

    it('the state after listing one item with two holders', () => {
      const after = zhScene();
      after.items = ['黄铜怀表（青梧持有）', '黄铜怀表（林砚持有）'];
      const cs = of(input('林砚看着那只黄铜怀表。', 'zh', { after }), 'two-holders');
      assert.equal(cs.length, 1);
      assert.equal(cs[0]!.quote, '林砚看着那只黄铜怀表。');
    });
  });

  describe('time-backwards', () => {
    it('reads the time of day and the day from the state', () => {
      assert.deepEqual(timeOf('傍晚（雨中）'), { word: '傍晚', lo: 7, hi: 7 });
      assert.equal(timeOf('two in the morning')?.lo, 1);
      assert.equal(timeOf('eleven at night')?.lo, 9);
      assert.equal(timeOf('雨中'), undefined);
      assert.equal(dayOf('第五日夜晚'), 5);
      assert.equal(dayOf('Day 4, evening'), 4);
      assert.equal(dayOf('the fourth day'), 4);
    });

    it('an earlier time of day, or an earlier day, is flagged', () => {
      assert.deepEqual(found(input('中午的阳光照进茶馆。', 'zh')), ['time-backwards/中午/high']);
      assert.deepEqual(found(input('The morning sun lit the inn.', 'en')), ['time-backwards/morning/high']);
      const before = scene({ time: '第五日夜晚', location: '茶馆' });
      assert.equal(of(input('第四日一早，林砚去了城东。', 'zh', { before, after: before }), 'time-backwards').length, 1);
    });

    it('a time said as now in dialogue is a candidate, not sure', () => {
      assert.deepEqual(found(input('林砚看了一眼手表：「才上午十点。」', 'zh')).filter((x) => x.startsWith('time')), ['time-backwards/上午/medium']);
      assert.deepEqual(found(input('"It\'s ten in the morning," Elara said.', 'en')).filter((x) => x.startsWith('time')), ['time-backwards/ten in the morning/medium']);
    });

    it('stays quiet: a new day, dialogue about another time, a later time, yesterday, plans, a flashback', () => {
      assert.deepEqual(found(input('第二天中午，林砚醒来。', 'zh')), []);
      assert.deepEqual(found(input('「昨天中午你去哪了？」林砚问。', 'zh')), []);
      assert.deepEqual(found(input('入夜，雨停了。', 'zh')), []);
      assert.deepEqual(found(input('她想起昨天下午的事。', 'zh')), []);
      assert.deepEqual(found(input('The next morning, Elara woke.', 'en')), []);
      assert.deepEqual(found(input('She would leave in the morning.', 'en')), []);
      assert.deepEqual(high(input('那年夏天的一个清晨，她第一次见到他。', 'zh'), 'time-backwards'), []);
      const night = scene({ time: '深夜', location: '茶馆' });
      assert.deepEqual(found(input('凌晨，雨停了。', 'zh', { before: night, after: night })), []);
    });
  });

  describe('misspelt-name', () => {
    it('a near miss of a roster name in a name-like place', () => {
      const cs = of(input('青吾说：「你好。」', 'zh'), 'misspelt-name');
      assert.deepEqual(cs.map((c) => [c.subject, c.expected, c.confidence]), [['青吾', '青梧', 'high']]);
      assert.deepEqual(of(input('Elarra said, "Hello."', 'en'), 'misspelt-name').map((c) => [c.subject, c.expected]), [['Elarra', 'Elara']]);
    });

    it('a near name the scribe registered this turn is still a candidate, less sure', () => {
      const after = zhScene();
      after.characters['青吾'] = ch('茶馆');
      assert.deepEqual(of(input('青吾说：「你好。」', 'zh', { after }), 'misspelt-name').map((c) => c.confidence), ['medium']);
    });

    it('stays quiet on ordinary words and on real names', () => {
      assert.deepEqual(of(input('青年说：「你好。」', 'zh'), 'misspelt-name'), []);
      const before = scene({ time: '', location: 'x', characters: { Mara: ch('x'), Mary: ch('x') } });
      assert.deepEqual(of(input('Mara smiled at Mary.', 'en', { before, after: before }), 'misspelt-name'), []);
    });
  });

  it('offsets are per file when several files were written', () => {
    const i: CheckInput = { ...input('', 'zh'), prose: [{ file: 'a.md', text: '雨停了。' }, { file: 'b.md', text: '第一句。白露点了点头。' }] };
    const cs = findCandidates(i);
    assert.deepEqual(cs.map((c) => [c.file, c.offset, c.quote]), [['b.md', 4, '白露点了点头。']]);
  });

  it('property: never throws on any prose, and every quote is the exact substring at its offset', () => {
    const piece = fc.constantFrom('沈舟', '青梧', '青吾', '白露', '林砚', '说：', '道。', '「', '」', '“', '”', '"', '。', '，', '\n', '掏出', '黄铜怀表', '递给', '中午', '第二天', '想起',
      'Corwin', 'Mira', 'Elarra', ' said', ' walked in', ' the brass watch', ' handed', ' morning', ' remembered', '. ', ', ', "'s", ' ', 'a');
    fc.assert(fc.property(fc.array(piece, { maxLength: 60 }).map((a) => a.join('')), fc.constantFrom<'zh' | 'en'>('zh', 'en'), (text, lang) => {
      const i = input(text, lang);
      for (const c of findCandidates(i)) {
        assert.equal(text.slice(c.offset, c.offset + c.quote.length), c.quote);
        assert.ok(c.quote !== '' && ['high', 'medium', 'low'].includes(c.confidence));
      }
    }), { numRuns: runs(300, 5000) });
  });

  it('is fast: a 3,000-character chapter well under a few milliseconds', () => {
    const para = '林砚推开门，雨声扑面而来。青梧放下茶杯，看着他。「你来了。」她说。窗外的灯笼晃了晃，白露的影子投在墙上。沈舟想起了那只黄铜怀表。\n';
    const text = para.repeat(Math.ceil(3000 / para.length)).slice(0, 3000);
    const i = input(text, 'zh');
    for (let k = 0; k < 200; k++) findCandidates(i); // warm up
    const t0 = process.hrtime.bigint();
    const n = 50;
    for (let k = 0; k < n; k++) findCandidates(i);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6 / n;
    // Typically about 1 ms on a shared core; the bound leaves room for a busy machine.
    assert.ok(ms < 8, `${ms.toFixed(2)} ms per check`);
  });
});
