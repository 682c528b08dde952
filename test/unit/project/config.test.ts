import { strict as assert } from 'node:assert';
import { parse } from 'yaml';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseProjectConfig, resolveLanguage, formatProblem, DEFAULT_MANUSCRIPT, MAX_CONFIG_CHARS } from '../../../src/project/config';
import { openingState } from '../../../src/state/opening';
import { stateAt } from '../../../src/state/stateAt';
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
    assert.deepEqual(config.opening, { time: '傍晚（雨中）', location: '听雨轩', characters: ['青梧', '沈砚'], variables: { 银两: 12 } });
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

  it('words its problems in the UI language: the same lines, in Chinese for a Chinese VS Code', () => {
    const text = 'title: Ok\nlanguage: fr\nmood: calm\nopening:\n  weather: rain\n';
    const en = parseProjectConfig(text, 'en').problems;
    const zh = parseProjectConfig(text, 'zh').problems;
    assert.deepEqual(zh.map((p) => p.line), en.map((p) => p.line));
    assert.equal(zh.length, 3);
    for (const p of zh) assert.match(p.message, /[\u4e00-\u9fff]/, p.message);
    assert.match(zh.map((p) => p.message).join('\n'), /「language」应为 zh、en、auto 之一/);
    assert.match(zh.map((p) => p.message).join('\n'), /未知字段「mood」/);
    assert.match(parseProjectConfig('title: [x\n', 'zh').problems[0]!.message, /^YAML 格式错误/);
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

  it('never throws on an alias bomb; reports it at the first alias and uses the defaults', () => {
    // "Billion laughs": nine aliases per level, five levels.
    const bomb = [
      'title: Ok',
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    ].join('\n');
    const { config, problems } = parseProjectConfig(bomb);
    assert.equal(config.title, '');
    assert.deepEqual(config.manuscript, DEFAULT_MANUSCRIPT);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.line, 3);
    assert.match(formatProblem(problems[0]!), /^worldline\.yaml:3: .*aliases.*defaults are used/);
  });

  it('never throws on deep nesting or a huge file, and says what is wrong', () => {
    const deep = `title: ${'['.repeat(20000)}${']'.repeat(20000)}\n`;
    const deepBlock = `variables:\n${Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i + 1)}k:`).join('\n')} 1\n`;
    const hugeScalar = `title: "${'x'.repeat(1_000_000)}"\n`;
    for (const text of [deep, deepBlock]) {
      const { config, problems } = parseProjectConfig(text);
      assert.ok(Array.isArray(config.manuscript));
      for (const p of problems) assert.ok(p.message.length > 0 && p.message.length < 500);
    }
    assert.equal(parseProjectConfig(hugeScalar).config.title.length, 1_000_000);
    const tooBig = parseProjectConfig(`title: x\nstyle: "${'y'.repeat(MAX_CONFIG_CHARS)}"\n`);
    assert.equal(tooBig.config.title, '');
    assert.match(tooBig.problems[0]!.message, /too large.*defaults are used/);
  });

  it('the opening carries the project variables into the opening state', () => {
    const { config } = parseProjectConfig('opening:\n  time: 傍晚\n  location: 听雨轩\n  characters: [青梧]\nvariables:\n  银两: 12\n  背包: {伞: 1}\n');
    const state = openingState(config.opening);
    assert.deepEqual(state.variables, { 银两: 12, 背包: { 伞: 1 } });
    assert.equal(state.location, '听雨轩');
    assert.deepEqual(Object.keys(state.characters), ['青梧']);
    // Callers build the state from `config.opening` through stateAt on an empty branch.
    assert.deepEqual(stateAt([], config.opening).state.variables, { 银两: 12, 背包: { 伞: 1 } });
  });

  it('the sample novel starts with its variables', () => {
    const text = fs.readFileSync(path.resolve(__dirname, '../../../../examples/sample-novel/worldline.yaml'), 'utf8');
    const { config, problems } = parseProjectConfig(text);
    assert.deepEqual(problems, []);
    assert.deepEqual(openingState(config.opening).variables, { 银两: 12 });
  });

  it('without variables the opening state has no variables field', () => {
    for (const text of ['opening:\n  location: 听雨轩\n', 'variables: {}\n', 'variables:\n', '']) {
      const { config } = parseProjectConfig(text);
      assert.ok(!('variables' in config.opening), text);
      assert.ok(!('variables' in openingState(config.opening)), text);
    }
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
