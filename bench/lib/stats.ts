// What every bench prints: the median of several runs with its spread, a ratio to a baseline
// measured in the same run (these machines are noisy), and "met" only where the bench's own
// figure meets its own goal.

export interface Sample {
  /** Milliseconds (or whatever unit the values were), one per run. */
  values: number[];
  median: number;
  min: number;
  max: number;
  /** The 25th and 75th percentiles. */
  p25: number;
  p75: number;
}

export function summarize(values: readonly number[]): Sample {
  if (values.length === 0) throw new Error('no values to summarize');
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => {
    const i = (sorted.length - 1) * q;
    const lo = Math.floor(i);
    const hi = Math.ceil(i);
    return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (i - lo);
  };
  return { values: [...values], median: at(0.5), min: sorted[0] as number, max: sorted[sorted.length - 1] as number, p25: at(0.25), p75: at(0.75) };
}

export interface MeasureOptions {
  /** Timed runs (default 7). */
  runs?: number;
  /** Untimed runs first (default 1). */
  warmup?: number;
  /** Work done before each run, not timed (fresh inputs). */
  before?: () => unknown | Promise<unknown>;
}

/** Times `fn` in milliseconds over several runs. */
export async function measure(fn: () => unknown | Promise<unknown>, options: MeasureOptions = {}): Promise<Sample> {
  const runs = options.runs ?? 7;
  for (let i = 0; i < (options.warmup ?? 1); i++) {
    await options.before?.();
    await fn();
  }
  const values: number[] = [];
  for (let i = 0; i < runs; i++) {
    await options.before?.();
    const start = process.hrtime.bigint();
    await fn();
    values.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return summarize(values);
}

/** Milliseconds, with the precision a reader needs. */
export function ms(n: number): string {
  if (n >= 100) return `${n.toFixed(0)} ms`;
  if (n >= 10) return `${n.toFixed(1)} ms`;
  if (n >= 1) return `${n.toFixed(2)} ms`;
  return `${n.toFixed(3)} ms`;
}

/** "12.3 ms (p25–p75 11.9–13.0, min–max 11.5–15.2, n=7)". */
export function withSpread(s: Sample, unit: (n: number) => string = ms): string {
  return `${unit(s.median)} (p25–p75 ${unit(s.p25)}–${unit(s.p75)}, min–max ${unit(s.min)}–${unit(s.max)}, n=${s.values.length})`;
}

/** The ratio of two medians, "2.31×". */
export function ratio(a: Sample | number, baseline: Sample | number): string {
  const x = typeof a === 'number' ? a : a.median;
  const b = typeof baseline === 'number' ? baseline : baseline.median;
  if (b === 0) return 'n/a';
  return `${(x / b).toFixed(2)}×`;
}

export interface Goal {
  /** What the goal is, as the issue says it ("≤ 100 ms"). */
  label: string;
  /** The figure measured (a median, a ratio, a percentage). */
  figure: number;
  /** The bound. */
  bound: number;
  /** 'atMost' (default): the figure must be ≤ bound; 'atLeast': ≥ bound. */
  direction?: 'atMost' | 'atLeast';
  /** How to print a figure (default: ms). */
  unit?: (n: number) => string;
}

/** "met" when the figure meets the bound, else "missed by …" (how far, in the goal's unit and as a ratio). */
export function verdict(goal: Goal): string {
  const unit = goal.unit ?? ms;
  const atLeast = goal.direction === 'atLeast';
  const met = atLeast ? goal.figure >= goal.bound : goal.figure <= goal.bound;
  if (met) return `met (${unit(goal.figure)}; goal ${goal.label})`;
  const by = Math.abs(goal.figure - goal.bound);
  const times = goal.bound === 0 ? '' : `, ${(goal.figure / goal.bound).toFixed(2)}× the bound`;
  return `missed by ${unit(by)} (${unit(goal.figure)}; goal ${goal.label}${times})`;
}

/** Prints rows as an aligned table (CJK characters count two columns). */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const width = (s: string): number => [...s].reduce((w, ch) => w + (/[\u2e80-\uffff]/.test(ch) ? 2 : 1), 0);
  const cols = headers.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c + ' '.repeat(Math.max(0, (cols[i] as number) - width(c)))).join('  ').trimEnd();
  console.log(line(headers));
  console.log(cols.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

/** The process's resident set size in MiB. */
export function rssMiB(): number {
  return process.memoryUsage().rss / (1024 * 1024);
}

export function mib(n: number): string {
  return `${n.toFixed(0)} MiB`;
}

export function percent(n: number): string {
  return `${n.toFixed(1)}%`;
}

/** Runs the garbage collector when node was started with --expose-gc (RSS figures are steadier). */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}
