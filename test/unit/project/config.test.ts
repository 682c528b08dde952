import { strict as assert } from 'node:assert';
import { parse } from 'yaml';
import { parseProjectConfig, resolveLanguage, formatProblem, DEFAULT_MANUSCRIPT } from '../../../src/project/config';
import { newNovelFiles } from '../../../src/project/template';

describe('project config (worldline.yaml)', () => {
  it('reads every field of a valid file', () => {
    const { config, problems } = parseProjectConfig(`title: 雨夜客栈
language: zh
manuscript:
  - "chapters/**/*.md"
style: |
  第三人称
opening:
  time: 傍晚（雨中）
  location: 听雨轩
  characters: [青梧, 沈砚]
variables:
  银两: 12
`);
    assert.deepEqual(problems, []);
    assert.equal(config.title, '雨夜客栈');
    assert.equal(config.language, 'zh');
    assert.deepEqual(config.manuscript, ['chapters/**/*.md']);
    assert.equal(config.style, '第三人称\n');
    assert.deepEqual(config.opening, { time: '傍晚（雨中）', location: '听雨轩', characters: ['青梧', '沈砚'] });
    assert.deepEqual(config.variables, { 银两: 12 });
  });

  it('uses the defaults for an empty file', () => {
    const { config, problems } = parseProjectConfig('');
    assert.deepEqual(problems, []);
    assert.equal(config.language, 'auto');
    assert.deepEqual(config.manuscript, DEFAULT_MANUSCRIPT);
  });

  it('reports invalid YAML with its line number and falls back to defaults', () => {
    const { config, problems } = parseProjectConfig('title: x\nlanguage: [zh\nstyle: y\n');
    assert.ok(problems.length >= 1);
    assert.equal(problems[0]!.line, 3);
    assert.match(formatProblem(problems[0]!), /^worldline\.yaml:3: Invalid YAML/);
    assert.equal(config.title, '');
  });

  it('reports wrong types with the line of the value and keeps the other fields', () => {
    const { config, problems } = parseProjectConfig('title: Ok\nlanguage: fr\nmanuscript: 5\nopening:\n  time: [1]\n  location: Inn\n');
    assert.equal(config.title, 'Ok');
    assert.equal(config.language, 'auto');
    assert.deepEqual(config.manuscript, DEFAULT_MANUSCRIPT);
    assert.equal(config.opening.location, 'Inn');
    assert.equal(config.opening.time, '');
    const byLine = new Map(problems.map((p) => [p.line, p.message]));
    assert.match(byLine.get(2) ?? '', /language/);
    assert.match(byLine.get(3) ?? '', /manuscript/);
    assert.match(byLine.get(5) ?? '', /opening\.time/);
  });

  it('reports unknown fields and a non-mapping document', () => {
    assert.match(parseProjectConfig('titel: x\n').problems[0]!.message, /Unknown field "titel"/);
    assert.equal(parseProjectConfig('titel: x\n').problems[0]!.line, 1);
    assert.match(parseProjectConfig('- a\n- b\n').problems[0]!.message, /must be a mapping/);
  });

  it('never throws on hostile input', () => {
    const hostile = ['{', ': :', '&a [*a]', 'a: &x [*x, *x]', '\u0000', 'x: !!binary ###', 'title: !!js/function "x"', '__proto__: {polluted: 1}', 'a: '.repeat(300)];
    for (const text of hostile) {
      const { config } = parseProjectConfig(text);
      assert.ok(Array.isArray(config.manuscript));
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('resolves auto to the display language', () => {
    assert.equal(resolveLanguage('auto', 'zh-cn'), 'zh');
    assert.equal(resolveLanguage('auto', 'zh-tw'), 'zh');
    assert.equal(resolveLanguage('auto', 'en'), 'en');
    assert.equal(resolveLanguage('auto', 'de'), 'en');
    assert.equal(resolveLanguage('en', 'zh-cn'), 'en');
  });

  it('writes a template that reads back without problems, in both languages', () => {
    for (const lang of ['zh', 'en'] as const) {
      const files = newNovelFiles(lang, 'A "quoted": title');
      assert.deepEqual(files.map((f) => f.path), ['worldline.yaml', 'chapters/01.md']);
      const { config, problems } = parseProjectConfig(files[0]!.content);
      assert.deepEqual(problems, []);
      assert.equal(config.title, 'A "quoted": title');
      assert.equal(config.language, lang);
      assert.ok(parse(files[0]!.content));
    }
  });
});
