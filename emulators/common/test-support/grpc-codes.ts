/** What tests of Google's clients against an emulator assert: the gRPC status a client's error carries. */
import assert from 'node:assert/strict';

/** gRPC status codes, as Google's clients put them on their errors (REST transport included). */
export const GRPC = Object.freeze({
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  FAILED_PRECONDITION: 9,
});

/** Asserts that `p` rejects with an error whose `code` is `code`. */
export async function rejectsWithCode(p: Promise<unknown>, code: number): Promise<void> {
  await assert.rejects(p, (err: { code?: unknown }) => {
    assert.equal(err.code, code, String(err));
    return true;
  });
}
