// Builds the continuity evaluation set (bench/continuity/*.json) from the drafts in zh.mjs and en.mjs.
// Run: node bench/continuity/generator/generate.mjs. Deterministic: the same drafts give the same files.
// The JSON files are the set; this script only saves typing (README.md says how items are labelled).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zh from './zh.mjs';
import * as en from './en.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.resolve(here, '..');
const SHORT = { 'departed-acts': 'departed', 'two-places': 'places', 'two-holders': 'holders', 'dead-acts': 'dead', 'time-backwards': 'time', 'misspelt-name': 'name' };
const TARGETS = [320, 460, 600, 760, 900, 1050, 1250, 1450];

const LANG = {
  zh: {
    t0: '第一日清晨', t1: '第二日午后', held: (i, h) => `${i}（${h}持有）`,
    left: (x, l, e) => `${x}已离开${l}，去了${e}`, away: (x, e) => `${x}在${e}办事`,
    dead: ['已死（中毒）', '已故', '身亡', '死了，遗体尚未入殓'], deadNote: (x, l) => `${x}的遗体停在${l}`,
    deadNotes: ['昨夜断了气，尚未下葬', '已经死了，是被人害死的', '死于坠崖，尸身刚抬回来'],
    newcomer: '初次登场', pron: { m: '他', f: '她' },
  },
  en: {
    t0: 'Day 1, morning', t1: 'Day 2, afternoon', held: (i, h) => `${i} (held by ${h})`,
    left: (x, l, e) => `${x} left ${l} for ${e}`, away: (x, e) => `away in ${e}`,
    dead: ['dead (poisoned)', 'deceased', 'killed', 'dead; the body is not yet buried'], deadNote: (x, l) => `${x}'s body lies in ${l}`,
    deadNotes: ['died last night; not yet buried', 'was murdered; dead since the second night', 'fell from the cliff and died; the body was just carried back'],
    newcomer: 'just arrived',
    pron: { m: { he: 'he', He: 'He', his: 'his', His: 'His', him: 'him', self: 'himself' }, f: { he: 'she', He: 'She', his: 'her', His: 'Her', him: 'her', self: 'herself' } },
  },
};

function fill(text, cast, lang) {
  let s = text;
  if (lang === 'zh') {
    const p = LANG.zh.pron;
    s = s.replaceAll('{他P}', p[cast.pg]).replaceAll('{他Q}', p[cast.qg]).replaceAll('{他X}', p[cast.xg]);
  } else {
    const pr = LANG.en.pron;
    for (const [who, g] of [['X', cast.xg], ['Q', cast.qg], ['P', cast.pg]]) {
      const f = pr[g];
      s = s.replaceAll(`{${who}his}`, f.his).replaceAll(`{${who}His}`, f.His).replaceAll(`{${who}him}`, f.him)
        .replaceAll(`{${who}he}`, f.he).replaceAll(`{${who}He}`, f.He).replaceAll(`{${who}self}`, f.self)
        .replaceAll(`{${who}her}`, f.his).replaceAll(`{${who}she}`, f.he);
    }
  }
  for (const k of ['MP', 'MQ', 'MX', 'P', 'Q', 'X', 'W', 'L', 'E', 'I', 'J', 'N']) s = s.replaceAll(`{${k}}`, cast[k]);
  if (/[{}]/.test(s)) throw new Error(`unfilled placeholder in: ${s}`);
  // A place name such as "the ferry inn" that starts a sentence.
  if (lang === 'en') s = s.replace(/(^|\n|[.!?]["”’]?\s+|["“])(the )/g, (_, a) => `${a}The `);
  return s;
}

/** The cast's dialogue marks: zh 「」 or “”, en “” or straight quotes. */
function quoteStyle(text, style) {
  if (style === '「」') return text.replaceAll('“', '「').replaceAll('”', '」').replaceAll('‘', '『').replaceAll('’', '』');
  if (style === '""') return text.replaceAll('“', '"').replaceAll('”', '"').replaceAll('‘', "'").replaceAll('’', "'");
  // Curly: straight double quotes alternate open/close within a paragraph.
  return text.split('\n').map((para) => { let open = true; return para.replace(/"/g, () => { const q = open ? '“' : '”'; open = !open; return q; }); }).join('\n');
}

function ch(affinity, status, notes, at) {
  return { affinity, status, notes, at };
}

function states(core, cast, lang) {
  const L = LANG[lang];
  const c = cast;
  const [tb, ta] = core.time ?? [c.T, c.T];
  const heldQ = L.held(c.I, c.Q);
  const heldP = L.held(c.J, c.P);
  const base = (time) => ({
    time,
    location: c.L,
    characters: { [c.P]: ch(c.aP, c.sP, '', c.L), [c.Q]: ch(c.aQ, c.sQ, '', c.L) },
    items: [heldQ, heldP],
    facts: [c.fact],
    threads: [c.thread],
    roster: {
      characters: { [c.W]: L.t0, [c.X]: L.t0, [c.P]: L.t1, [c.Q]: L.t1 },
      locations: { [c.E]: L.t0, [c.L]: L.t1 },
      items: { [heldQ]: L.t1, [heldP]: L.t1 },
      threads: { [c.thread]: L.t1 },
    },
  });
  const before = base(tb);
  const after = base(ta);
  const both = (f) => { f(before); f(after); };
  const addChar = (s, name, st) => { s.characters[name] = st; };
  const deadStatus = L.dead[c.idx % L.dead.length];
  switch (core.m) {
    case 'departed':
      both((s) => s.facts.push(L.left(c.X, c.L, c.E)));
      break;
    case 'departed-now':
      addChar(before, c.X, ch(-10, '', '', c.L));
      after.facts.push(L.left(c.X, c.L, c.E));
      break;
    case 'departed-returns':
      before.facts.push(L.left(c.X, c.L, c.E));
      addChar(after, c.X, ch(5, '', '', c.L));
      break;
    case 'elsewhere':
      both((s) => addChar(s, c.X, ch(15, L.away(c.X, c.E), '', c.E)));
      break;
    case 'elsewhere-arrives':
      addChar(before, c.X, ch(15, L.away(c.X, c.E), '', c.E));
      addChar(after, c.X, ch(15, '', '', c.L));
      break;
    case 'dead':
      both((s) => addChar(s, c.X, ch(0, deadStatus, L.deadNote(c.X, c.L), c.L)));
      break;
    case 'dead-notes':
      both((s) => addChar(s, c.X, ch(0, '', `${c.X}${lang === 'zh' ? '' : ' '}${L.deadNotes[c.idx % L.deadNotes.length]}`, c.L)));
      break;
    case 'item-Q':
    case 'time':
    case 'normal':
      break;
    case 'item-Q-after-P':
    case 'item-handover': {
      const moved = L.held(c.I, c.P);
      after.items[0] = moved;
      after.roster.items[moved] = ta;
      break;
    }
    case 'newchar':
      addChar(after, c.N, ch(0, L.newcomer, '', c.L));
      after.roster.characters[c.N] = ta;
      break;
    default:
      throw new Error(`unknown mode ${core.m}`);
  }
  if (core.wPresent) both((s) => addChar(s, c.W, ch(0, '', '', c.L)));
  return { before, after };
}

function build(lang, mod) {
  const casts = mod.CASTS.map((c, idx) => ({ ...c, idx, aP: 20 + ((idx * 7) % 40), aQ: 10 + ((idx * 11) % 50) }));
  const items = [];
  const counters = new Map();
  mod.CORES.forEach((core, i) => {
    let cast = casts[(i * 5 + 3) % casts.length];
    if (core.pin) cast = casts.find((c) => c.P === core.pin || c.Q === core.pin || c.X === core.pin);
    if (!cast) throw new Error(`no cast for pin ${core.pin}`);
    const marked = quoteStyle(fill(core.s, cast, lang), cast.style);
    const gold = [];
    const coreText = marked.replace(/⟦([^⟧]*)⟧/g, (_, q) => { gold.push(q); return q; });
    if (core.k === 'error' && gold.length === 0) throw new Error(`error item without gold: ${core.s}`);
    if (core.k !== 'error' && gold.length > 0) throw new Error(`gold in a negative: ${core.s}`);
    // Genre paragraphs around the core, as many as the item's length target asks.
    const pool = [...mod.FILLERS[cast.genre], ...mod.GENERIC].map((f) => quoteStyle(fill(f, cast, lang), cast.style));
    const target = TARGETS[(i * 3) % TARGETS.length];
    const pre = [];
    const post = [];
    let len = coreText.length;
    for (let j = 0; j < pool.length && len < target; j++) {
      const para = pool[(i + j) % pool.length];
      if (len + para.length > 1500) continue;
      ((i + j) % 3 === 0 ? post : pre).push(para);
      len += para.length + 2;
    }
    const prose = [...pre, coreText, ...post].join('\n\n');
    const kindShort = core.k === 'error' ? 'err' : core.k === 'hard-negative' ? 'hn' : '';
    const group = core.t ? `${SHORT[core.t]}-${kindShort}` : 'clean';
    const n = (counters.get(group) ?? 0) + 1;
    counters.set(group, n);
    const { before, after } = states(core, cast, lang);
    const item = {
      id: `${lang}-${group}-${String(n).padStart(2, '0')}`,
      lang,
      kind: core.k,
      genre: cast.genre,
      ...(core.t && core.k === 'hard-negative' ? { tempts: core.t } : {}),
      before,
      after,
      prose,
      gold: gold.map((quote) => ({ type: core.t, quote })),
      ...(core.note ? { note: fill(core.note, cast, lang) } : {}),
    };
    items.push({ file: core.t ? `${lang}-${core.t}.json` : `${lang}-clean.json`, item });
  });
  return items;
}

const all = [...build('zh', zh), ...build('en', en)];
const files = new Map();
for (const { file, item } of all) files.set(file, [...(files.get(file) ?? []), item]);
for (const old of fs.readdirSync(outDir)) if (/^(zh|en)-.*\.json$/.test(old)) fs.unlinkSync(path.join(outDir, old));
for (const [file, items] of files) fs.writeFileSync(path.join(outDir, file), JSON.stringify(items, null, 2) + '\n');
console.log(`${all.length} items in ${files.size} files`);
