/**
 * Firestore's REST error envelope, `{"error": {code, message, status}}`: the HTTP status is the
 * canonical code's mapping (google.rpc.Code, as Google's APIs translate gRPC codes to HTTP), and
 * `status` its name. Google's client libraries decide on `status`/`code` alone, never on the
 * message, so both must be what Firestore answers (README, "Errors").
 */

export const HTTP_OF = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
} as const;
export type Status = keyof typeof HTTP_OF;

export class FirestoreError extends Error {
  readonly status: Status;
  readonly details: readonly unknown[] | undefined;
  constructor(status: Status, message: string, details?: readonly unknown[]) {
    super(message);
    this.status = status;
    this.details = details;
  }

  get code(): number {
    return HTTP_OF[this.status];
  }

  body(): unknown {
    return {
      error: {
        code: this.code,
        message: this.message,
        status: this.status,
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }
}

export const invalid = (message: string): FirestoreError => new FirestoreError('INVALID_ARGUMENT', message);

export const unsupported = (what: string): FirestoreError =>
  new FirestoreError('UNIMPLEMENTED', `${what} is not supported by the local Firestore emulator.`);
