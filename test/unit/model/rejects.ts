// The model error a promise rejects with (a test fails when it resolves or rejects otherwise).
import { strict as assert } from 'node:assert';
import { ModelError } from '../../../src/model/errors';

export async function rejects(p: Promise<unknown>): Promise<ModelError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ModelError, `expected a ModelError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}
