// Every failure code has words in both languages: each model error code (with and without its
// arguments, and the context-length variants), each checkpoint error kind, each scribe stage, and
// the notices of the context budget. The words fill every placeholder, the zh-cn bundle has every
// key (and it reads differently from the English), the provider's message rides along untranslated
// as the detail, and nothing shaped like a key survives in it (a property over hostile details).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import type { CheckpointErrorKind } from '../../../src/checkpoints';
import type { Text } from '../../../src/common/text';
import { MODEL_ERROR_CODES, type ModelErrorArgs } from '../../../src/model/errors';
import type { ModelProblem } from '../../../src/model/problem';
import { checkpointCodeOf, checkpointProblemWords, maskSecrets, modelProblemWords, scribeProblemWords } from '../../../src/story/problemWords';
import { eventWords, noticeWords, sayWords, scribeStatusWords } from '../../../src/story/words';
import { CheckpointError } from '../../../src/checkpoints';
import { runs } from '../long-mode';
import { bundle, en, zh as zhBundle } from '../fixtures/translation';

const zh = (t: Text): string => {
  if (!t.literal) assert.notEqual(bundle[t.message], t.message, `"${t.message}" is not translated`);
  return zhBundle(t);
};
/** Every placeholder of a key has an argument. */
function filled(t: Text): void {
  const wanted = [...t.message.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]));
  for (const i of wanted) assert.ok(i < t.args.length && String(t.args[i]) !== '', `"${t.message}" lacks {${i}}`);
}

const FULL: ModelErrorArgs = { host: 'api.deepseek.com', status: '400', model: 'deepseek-chat', seconds: '60', detail: '400 Something the provider said' };
const CHECKPOINT_KINDS: CheckpointErrorKind[] = ['gitMissing', 'corrupt', 'locked', 'notFound', 'badInput', 'tooManyFiles', 'closed', 'io', 'blocked', 'error'];

describe('problem words', () => {
  it('every model error code, with its arguments and without, in both languages, the detail kept untranslated', () => {
    const seen = new Set<string>();
    for (const code of MODEL_ERROR_CODES) {
      for (const args of [FULL, {}] as ModelErrorArgs[]) {
        const w = modelProblemWords({ code, args });
        if (args === FULL) filled(w.text);
        seen.add(w.text.message);
        const english = sayWords(w, en);
        const chinese = sayWords(w, zh);
        assert.notEqual(chinese, english, code);
        if (code !== 'aborted' && args.detail) {
          assert.ok(english.endsWith(' (400 Something the provider said)'), `${code}: ${english}`);
          assert.ok(chinese.endsWith(' (400 Something the provider said)'), 'the detail is not translated');
        }
        if (code === 'contextLength') assert.doesNotMatch(english, /model name/i, 'never the generic advice');
      }
    }
    assert.ok(seen.size >= MODEL_ERROR_CODES.length, 'each code has its own words');
  });

  it('a context-length refusal says what was tried, and the window when known', () => {
    const p: ModelProblem = { code: 'contextLength', args: FULL };
    const plain = modelProblemWords(p);
    const retried = modelProblemWords(p, { recovery: 'retried', contextWindow: 131072 });
    const none = modelProblemWords(p, { recovery: 'notCompacted' });
    assert.equal(new Set([plain.text.message, retried.text.message, none.text.message]).size, 3);
    assert.equal(en(retried.more!), 'The model\'s context window is 131,072 tokens.');
    assert.match(zh(retried.more!), /131,072/);
    assert.equal(plain.more, undefined);
  });

  it('the notice: the code\'s words when there is a problem, the old literal otherwise; the budget notices have no button', () => {
    const failed = noticeWords({ kind: 'failed', message: 'English log line', auth: false, problem: { code: 'rateLimit', args: FULL } });
    assert.match(sayWords(failed, zh), /限制请求频率/);
    assert.doesNotMatch(sayWords(failed, zh), /English log line/);
    assert.equal(noticeWords({ kind: 'failed', message: 'x', auth: true, problem: { code: 'auth', args: FULL } }).action, 'setKey');
    for (const kind of ['compacting', 'compacted'] as const) {
      const w = noticeWords({ kind });
      assert.equal(w.kind, 'info');
      assert.equal(w.action, undefined);
      zh(w.text);
    }
  });

  it('every checkpoint error kind, in the events that carry one; without a code the store\'s message as before', () => {
    for (const code of CHECKPOINT_KINDS) {
      for (const event of [
        { kind: 'checkpointSkipped', message: 'git said: disk full', corrupt: code === 'corrupt', code },
        { kind: 'restoreFailed', message: 'git said: disk full', code },
        { kind: 'undoFailed', message: 'git said: disk full', code },
        { kind: 'followBlocked', message: 'chapters/a.md is a folder', code },
      ] as const) {
        const w = eventWords(event, 'zh')!;
        assert.ok(w.more, `${event.kind}/${code} says why`);
        const chinese = sayWords(w, zh);
        assert.notEqual(chinese, sayWords(w, en));
        const kept = ['badInput', 'io', 'blocked', 'error'].includes(code);
        assert.equal(chinese.includes(event.message), kept, `${code}: the store's message is the detail only where it holds specifics`);
      }
    }
    assert.equal(eventWords({ kind: 'restoreFailed', message: 'plain' }, 'en')!.text.literal, true);
    assert.deepEqual(checkpointCodeOf(new CheckpointError('locked', 'm')), { code: 'locked' });
    assert.deepEqual(checkpointCodeOf(new Error('m')), {});
    assert.equal(checkpointProblemWords({ message: 'Lead.', args: [] }, 'io', 'EIO').suffix, ' (EIO)');
  });

  it('every scribe stage; the Scene State view gets the worded failure, other statuses untouched', () => {
    for (const p of [{ stage: 'model' as const, model: { code: 'timeout' as const, args: FULL } }, { stage: 'model' as const }, { stage: 'parse' as const }, { stage: 'append' as const }]) {
      const w = scribeProblemWords(p);
      assert.notEqual(sayWords(w, zh), sayWords(w, en));
    }
    const failed = { running: false, last: { kind: 'failed' as const, warnings: [], error: 'The scribe\'s model call failed: …', at: 'now' } };
    const shown = scribeStatusWords(failed, { stage: 'parse' }, zh);
    assert.match(shown.last!.error!, /场记的回答不是场景状态补丁/);
    const applied = { running: false, last: { kind: 'applied' as const, warnings: [], at: 'now' } };
    assert.equal(scribeStatusWords(applied, { stage: 'parse' }, zh), applied);
    assert.equal(scribeStatusWords(failed, undefined, zh), failed);
  });

  it('property: nothing shaped like a key survives in the detail', () => {
    const keyArb = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/).map((k) => `sk-${k}`),
      fc.stringMatching(/^[A-Za-z0-9._-]{10,40}$/).map((k) => `Bearer ${k}`),
      fc.stringMatching(/^[A-Za-z0-9_-]{30,39}$/).map((k) => `AIza${k}`),
    );
    fc.assert(fc.property(fc.string(), keyArb, fc.string(), (before, key, after) => {
      const w = modelProblemWords({ code: 'auth', args: { host: 'h', detail: `${before} ${key} ${after}` } });
      const secret = key.replace(/^(Bearer |sk-|AIza)/, '');
      assert.ok(!(w.suffix ?? '').includes(secret), w.suffix);
    }), { numRuns: runs(300, 5000) });
    assert.equal(maskSecrets('key sk-abcdefghijkl here'), 'key sk-*** here');
  });
});
