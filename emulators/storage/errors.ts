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
  resourceIsEncryptedWithCustomerEncryptionKey: 400,
  resourceNotEncryptedWithCustomerEncryptionKey: 400,
  customerEncryptionKeyIsIncorrect: 400,
  forbidden: 403,
  retentionPolicyNotMet: 403,
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

/** What a few errors carry beyond a reason: IAM's 401 (reason `required`) and 403 (details). */
export interface ErrorExtras {
  /** The HTTP status, where it is not the reason's own. */
  readonly code?: number;
  /** The canonical status name (`UNAUTHENTICATED`, `PERMISSION_DENIED`). */
  readonly status?: string;
  readonly details?: readonly unknown[];
}

/** An error a handler throws to answer with Cloud Storage's error body. */
export class StorageError extends Error {
  readonly reason: Reason;
  readonly code: number;
  private readonly extras: ErrorExtras | undefined;
  constructor(reason: Reason, message: string, extras?: ErrorExtras) {
    super(message);
    this.reason = reason;
    this.code = extras?.code ?? REASONS[reason];
    this.extras = extras;
  }

  body(): unknown {
    return {
      error: {
        code: this.code,
        message: this.message,
        errors: [{ message: this.message, domain: 'global', reason: this.reason }],
        ...(this.extras?.status !== undefined ? { status: this.extras.status } : {}),
        ...(this.extras?.details !== undefined ? { details: this.extras.details } : {}),
      },
    };
  }
}

/** The message of noSuchBucket (xml.ts tells a missing bucket from a missing object by it). */
export const NO_SUCH_BUCKET = 'The specified bucket does not exist.';

export const noSuchBucket = (): StorageError => new StorageError('notFound', NO_SUCH_BUCKET);

export const noSuchObject = (bucket: string, name: string): StorageError =>
  new StorageError('notFound', `No such object: ${bucket}/${name}`);

export const preconditionFailed = (): StorageError =>
  new StorageError('conditionNotMet', 'At least one of the pre-conditions you specified did not hold.');
