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
export type Reason = keyof typeof REASONS;

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
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
  constructor(reason: Reason, message: string, location?: string) {
    super(message);
    this.reason = reason;
    this.code = REASONS[reason];
    this.location = location;
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
