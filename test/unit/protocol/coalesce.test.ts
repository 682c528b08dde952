// A burst of change events makes one refresh; a refresh never overlaps the one before it; a held
// view refreshes once the hold ends; `now` does not wait.
import { strict as assert } from 'node:assert';
import { Coalescer } from '../../../src/protocol/coalesce';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('coalescer', () => {
  it('many requests within the moment make one refresh', async () => {
    let runs = 0;
    const c = new Coalescer({ run: () => { runs++; }, delayMs: 5, onError: assert.fail });
    for (let i = 0; i < 10; i++) c.request();
    assert.equal(runs, 0, 'not at once');
    await tick(20);
    assert.equal(runs, 1);
    c.request();
    await c.idle();
    assert.equal(runs, 2);
  });

  it('a request made while a refresh runs makes exactly one more, after it', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    let release!: () => void;
    const c = new Coalescer({
      run: async () => {
        running++; runs++; most = Math.max(most, running);
        if (runs === 1) await new Promise<void>((r) => (release = r));
        running--;
      },
      delayMs: 1,
      onError: assert.fail,
    });
    c.request();
    await tick(10);
    c.request(); c.request();
    await tick(10);
    assert.equal(runs, 1, 'waits for the one running');
    release();
    await c.idle();
    assert.deepEqual([runs, most], [2, 1]);
  });

  it('held while a turn is written: refreshes once when released; now() does not wait', async () => {
    let busy = true;
    let runs = 0;
    const c = new Coalescer({ run: () => { runs++; }, delayMs: 1, hold: () => busy, onError: assert.fail });
    for (let i = 0; i < 5; i++) { c.request(); await tick(3); }
    assert.equal(runs, 0);
    assert.equal(c.pending, true);
    await c.now();
    assert.equal(runs, 1, 'now() runs despite the hold');
    c.request();
    busy = false;
    c.release();
    await tick(10);
    assert.equal(runs, 2);
    c.release();
    await tick(10);
    assert.equal(runs, 2, 'a release with nothing asked runs nothing');
  });

  it('a failing refresh is reported and the next request runs again; after dispose nothing runs', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const c = new Coalescer({ run: () => { runs++; if (runs === 1) throw new Error('boom'); }, delayMs: 1, onError: (e) => errors.push(e) });
    c.request();
    await c.idle();
    c.request();
    await c.idle();
    assert.equal(runs, 2);
    assert.match(String(errors[0]), /boom/);
    c.request();
    c.dispose();
    await tick(10);
    assert.equal(runs, 2);
  });
});
