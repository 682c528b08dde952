// Suite entry for the tests that run with the sample novel open (see scripts/test.mjs).
import { runSuite } from '../index';

export function run(): Promise<void> {
  return runSuite(__dirname);
}
