/**
 * Cloud Storage's JSON API error shape (docs/storage-emulator.md): `{"error": {code, message,
 * errors: [{message, domain, reason}]}}`. The client turns the first `errors[].reason` and the
 * HTTP status into its ApiError, and decides retries on the status, so both must match what
 * Cloud Storage answers.
 */

export const REASONS = {
  invalid: 400,
  required: 400,
  invalidArgument: 400,
  badRequest: 400,
  notFound: 404,
  conflict: 409,
  conditionNotMet: 412,
  notModified: 304,
  rangeNotSatisfiable: 416,
  uploadCancelled: 499,
  notImplemented: 501,
  backendError: 503,
} as const;
export type Reason = keyof typeof REASONS;

/** An error a handler throws to answer with Cloud Storage's error body. */
export class StorageError extends Error {
  readonly reason: Reason;
  readonly code: number;
  constructor(reason: Reason, message: string) {
    super(message);
    this.reason = reason;
    this.code = REASONS[reason];
  }

  body(): unknown {
    return {
      error: {
        code: this.code,
        message: this.message,
        errors: [{ message: this.message, domain: 'global', reason: this.reason }],
      },
    };
  }
}

export const noSuchBucket = (): StorageError =>
  new StorageError('notFound', 'The specified bucket does not exist.');

export const noSuchObject = (bucket: string, name: string): StorageError =>
  new StorageError('notFound', `No such object: ${bucket}/${name}`);

export const preconditionFailed = (): StorageError =>
  new StorageError('conditionNotMet', 'At least one of the pre-conditions you specified did not hold.');
