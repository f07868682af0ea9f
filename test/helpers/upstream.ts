import { expect } from 'vitest';
import { UpstreamError } from '../../src/http/errors.js';

/** Awaits a call that must fail with an UpstreamError, and returns that error. */
export async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(UpstreamError);
    return err as UpstreamError;
  }
  throw new Error('expected the call to fail');
}
