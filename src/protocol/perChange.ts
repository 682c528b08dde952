// One computation per change, shared by the views that show the same data (the worldline tree and
// the worldline graph both draw the worldline view after every change of the session). A change
// is told by `changed()`; every `get` until the next change shares the one computation.

export class PerChange<T> {
  private generation = 0;
  private last: { generation: number; value: Promise<T> } | undefined;

  /** Something changed: the next `get` computes again. */
  changed(): void {
    this.generation++;
  }

  /** The value for the latest change, computed by the first caller since it (a failure is not kept). */
  get(compute: () => Promise<T>): Promise<T> {
    const last = this.last;
    if (last && last.generation === this.generation) return last.value;
    const value = compute();
    const kept = { generation: this.generation, value };
    this.last = kept;
    value.catch(() => {
      if (this.last === kept) this.last = undefined;
    });
    return value;
  }
}

const shared = new WeakMap<object, PerChange<unknown>>();

/** The one `PerChange` of `owner` (the object whose data the views share, e.g. the worldline controller). */
export function perChangeOf<T>(owner: object): PerChange<T> {
  let memo = shared.get(owner);
  if (!memo) {
    memo = new PerChange<unknown>();
    shared.set(owner, memo);
  }
  return memo as PerChange<T>;
}
