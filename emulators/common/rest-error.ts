/**
 * Google's REST error envelope, `{"error": {code, message, status, details?}}`, as the JSON APIs
 * the Firestore and Secret Manager emulators speak answer it: `code` is the HTTP status of the
 * canonical code (google.rpc.Code mapped to HTTP as Google's APIs map it) and `status` the code's
 * name. Clients decide on those two, never on the message.
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

export class RestError extends Error {
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
