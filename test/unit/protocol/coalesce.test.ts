// A burst of change events makes one refresh; a refresh never overlaps the one before it; a held
// view refreshes once the hold ends; `now` does not wait.
import { strict as assert } from 'node:assert';
import { Coalescer, LastShown, TurnCoalescer, type TurnActivity } from '../../../src/protocol/coalesce';

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

describe('turn coalescer and last shown', () => {
  class Turns implements TurnActivity {
    busy = false;
    readonly listeners = new Set<(change: string) => void>();
    onDidChange(listener: (change: string) => void) {
      this.listeners.add(listener);
      return { dispose: () => void this.listeners.delete(listener) };
    }
    fire(change: string): void {
      for (const l of this.listeners) l(change);
    }
  }

  it('holds while a turn is written; a streamed token does not let go, any other change does; dispose stops listening', async () => {
    const turns = new Turns();
    let runs = 0;
    const c = new TurnCoalescer({ run: () => { runs++; }, delayMs: 2, turns, onError: assert.fail });
    turns.busy = true;
    c.request();
    await tick(15);
    assert.equal(runs, 0, 'held during the turn');
    turns.busy = false;
    turns.fire('stream');
    await tick(15);
    assert.equal(runs, 0, 'a token is not the end of anything');
    turns.fire('render');
    await tick(15);
    assert.equal(runs, 1, 'released');
    c.dispose();
    assert.equal(turns.listeners.size, 0);
  });

  it('a value equal to the one shown is not sent again, until the page forgets', () => {
    const shown = new LastShown();
    assert.equal(shown.matches({ a: 1 }), false, 'nothing shown yet');
    assert.equal(shown.differs({ a: 1 }), true);
    assert.equal(shown.differs({ a: 1 }), false);
    assert.equal(shown.differs({ a: 2 }), true);
    shown.forget();
    assert.equal(shown.differs({ a: 2 }), true);
    shown.remember(undefined);
    assert.equal(shown.matches(null), true, 'undefined and null show the same');
  });
});
