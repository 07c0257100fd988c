/** BigQuery's error shape (docs/google-wire.md §4): one registry of reasons and their HTTP status. */

export const REASONS = {
  invalid: 400,
  invalidQuery: 400,
  parseError: 400,
  required: 400,
  resourceInUse: 400,
  notFound: 404,
  duplicate: 409,
  conditionNotMet: 412,
  stopped: 200,
  backendError: 500,
  notImplemented: 501,
} as const;

/**
 * IAM's refusals, answered only with `--iam` (access.ts): kept out of REASONS, whose every entry
 * docs/bigquery-emulator.md's table must list, until that table has them too.
 */
export const ACCESS_REASONS = {
  authError: 401,
  accessDenied: 403,
} as const;
export type Reason = keyof typeof REASONS | keyof typeof ACCESS_REASONS;
const CODES: Readonly<Record<Reason, number>> = { ...REASONS, ...ACCESS_REASONS };

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  412: 'FAILED_PRECONDITION',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
};

/** An error a handler throws to answer with BigQuery's error body. */
export class ApiError extends Error {
  readonly reason: Reason;
  readonly code: number;
  readonly location: string | undefined;
  /** The envelope's `details` (an IAM refusal's ErrorInfo). */
  readonly details: readonly unknown[] | undefined;
  constructor(reason: Reason, message: string, location?: string, details?: readonly unknown[]) {
    super(message);
    this.reason = reason;
    this.code = CODES[reason];
    this.location = location;
    this.details = details;
  }

  /** The JSON body BigQuery answers with. */
  body(): unknown {
    return {
      error: {
        code: this.code,
        message: this.message,
        errors: [
          {
            message: this.message,
            domain: 'global',
            reason: this.reason,
            ...(this.location ? { location: this.location, locationType: 'other' } : {}),
          },
        ],
        status: STATUS[this.code] ?? 'UNKNOWN',
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }

  /** The `errorResult` of a failed job. */
  errorProto(): { reason: string; message: string; location?: string } {
    return {
      reason: this.reason,
      message: this.message,
      ...(this.location ? { location: this.location } : {}),
    };
  }
}
