// worldline.yaml's problems as the Problems panel and the log show them, and which language the
// novel is shown in (the worldline.language override, the project's language, VS Code's).
import { strict as assert } from 'node:assert';
import { parseProjectConfig } from '../../../src/project/config';
import { configReport, novelLanguage } from '../../../src/project/configReport';

describe('config report', () => {
  it('puts each problem on its 0-based line, one without a line on the first', () => {
    const r = configReport([{ line: 3, message: 'bad title' }, { message: 'no opening' }, { line: 0, message: 'odd' }]);
    assert.deepEqual(r.diagnostics, [{ line: 2, message: 'bad title' }, { line: 0, message: 'no opening' }, { line: 0, message: 'odd' }]);
    assert.deepEqual(r.logLines, ['worldline.yaml:3: bad title', 'worldline.yaml: no opening', 'worldline.yaml:0: odd']);
    assert.equal(r.first, 'worldline.yaml:3: bad title');
  });

  it('has nothing to say about a config without problems', () => {
    assert.deepEqual(configReport([]), { diagnostics: [], logLines: [], first: undefined });
  });

  it('marks the line a real problem is on', () => {
    const loaded = parseProjectConfig('title: Rain\nlanguage: klingon\n');
    assert.ok(loaded.problems.length > 0, 'the parser reports the language');
    const r = configReport(loaded.problems);
    assert.equal(r.diagnostics[0]!.line, 1);
    assert.match(r.first ?? '', /^worldline\.yaml:2: /);
  });

  it('lets worldline.language zh or en win, and otherwise defers to the project, then to VS Code', () => {
    assert.equal(novelLanguage('zh', 'en', 'en-US'), 'zh');
    assert.equal(novelLanguage('en', 'zh', 'zh-cn'), 'en');
    for (const override of ['auto', undefined, '', 'fr', 'ZH']) {
      assert.equal(novelLanguage(override, 'zh', 'en'), 'zh', String(override));
      assert.equal(novelLanguage(override, 'en', 'zh-cn'), 'en', String(override));
      assert.equal(novelLanguage(override, 'auto', 'zh-TW'), 'zh', String(override));
      assert.equal(novelLanguage(override, 'auto', 'en-GB'), 'en', String(override));
    }
  });
});
