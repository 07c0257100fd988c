import assert from 'node:assert/strict';
import { andThen, asPromise, isPending } from '../../core/maybe-async.ts';

describe('maybe-async', () => {
  it('andThen applies the step at once to a value at hand, without a promise', () => {
    const got = andThen(20, (n) => n + 1);
    assert.equal(got, 21);
    assert.equal(isPending(got), false);
  });

  it('andThen applies the step after a pending value resolves', async () => {
    const got = andThen(Promise.resolve(20), (n) => n + 1);
    assert.ok(isPending(got));
    assert.equal(await got, 21);
  });

  it("andThen hands a pending value's rejection to onRejected", async () => {
    const got = andThen(
      Promise.reject(new Error('registry unreachable')),
      () => 'read',
      (err) => `retry: ${(err as Error).message}`,
    );
    assert.equal(await got, 'retry: registry unreachable');
  });

  it('andThen does not hand an error thrown by the step to onRejected', async () => {
    const boom = () => {
      throw new Error('step failed');
    };
    const caught = () => 'caught';
    assert.throws(() => andThen(1, boom, caught), /step failed/);
    await assert.rejects(asPromise(andThen(Promise.resolve(1), boom, caught)), /step failed/);
  });

  it('andThen without onRejected passes a rejection on', async () => {
    await assert.rejects(asPromise(andThen(Promise.reject(new Error('gone')), () => 1)), /gone/);
  });

  it('asPromise keeps a promise as it is and wraps a value', async () => {
    const p = Promise.resolve('x');
    assert.equal(asPromise(p), p);
    const wrapped = asPromise('y');
    assert.ok(wrapped instanceof Promise);
    assert.equal(await wrapped, 'y');
  });

  it('isPending takes a thenable that is not a Promise as a value', () => {
    // biome-ignore lint/suspicious/noThenProperty: a thenable is what this test is about
    const thenable = { then: () => undefined };
    assert.equal(isPending(thenable), false);
    assert.equal(isPending(Promise.resolve(1)), true);
  });
});
