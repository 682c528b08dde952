// Suite entry: the same folder as the "sample novel" suite, opened again in a new window.
import { runSuite } from '../index';

export function run(): Promise<void> {
  return runSuite(__dirname);
}
