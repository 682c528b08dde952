// Property and fuzz tests run a modest count in `npm test` and the full count in the long mode
// (`npm run test:long`, which sets WORLDLINE_LONG=1), so CI stays fast and the deep runs exist.
export const LONG_MODE = process.env.WORLDLINE_LONG === '1';

/** `normal` runs in `npm test`, `long` in the long mode. */
export function runs(normal: number, long: number): number {
  return LONG_MODE ? long : normal;
}
