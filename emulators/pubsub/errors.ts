/**
 * One registry of the errors the emulator answers with: each status has its gRPC code and HTTP
 * status, so REST and gRPC report a caller's mistake the same way (docs/google-wire.md §1).
 */
export const STATUSES = {
  INVALID_ARGUMENT: { grpc: 3, http: 400 },
  NOT_FOUND: { grpc: 5, http: 404 },
  ALREADY_EXISTS: { grpc: 6, http: 409 },
  PERMISSION_DENIED: { grpc: 7, http: 403 },
  RESOURCE_EXHAUSTED: { grpc: 8, http: 429 },
  FAILED_PRECONDITION: { grpc: 9, http: 400 },
  UNIMPLEMENTED: { grpc: 12, http: 501 },
  INTERNAL: { grpc: 13, http: 500 },
  UNAVAILABLE: { grpc: 14, http: 503 },
  UNAUTHENTICATED: { grpc: 16, http: 401 },
} as const;

export type StatusName = keyof typeof STATUSES;

export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** An error meant for the caller: carries a Google status and, for field errors, violations. */
export class ApiError extends Error {
  readonly status: StatusName;
  readonly fieldViolations: readonly FieldViolation[];
  /** More `google.rpc` details for the REST envelope (an IAM refusal's ErrorInfo). */
  readonly details: readonly unknown[];

  constructor(
    status: StatusName,
    message: string,
    fieldViolations: readonly FieldViolation[] = [],
    details: readonly unknown[] = [],
  ) {
    super(message);
    this.status = status;
    this.fieldViolations = fieldViolations;
    this.details = details;
  }
}

export const invalid = (message: string, field?: string): ApiError =>
  new ApiError('INVALID_ARGUMENT', message, field ? [{ field, description: message }] : []);

export const notFound = (resource: string): ApiError =>
  new ApiError('NOT_FOUND', `Resource not found (resource=${resource}).`);

export const alreadyExists = (resource: string): ApiError =>
  new ApiError('ALREADY_EXISTS', `Resource already exists in the project (resource=${resource}).`);

/** Google's wording for a numeric bound that was passed ("The value for X is too large…"). */
export function tooLarge(what: string, passed: number, max: number, field?: string): ApiError {
  return invalid(
    `The value for ${what} is too large. You passed ${passed} in the request, but the maximum value is ${max}.`,
    field,
  );
}

export function tooSmall(what: string, passed: number, min: number, field?: string): ApiError {
  return invalid(
    `The value for ${what} is too small. You passed ${passed} in the request, but the minimum value is ${min}.`,
    field,
  );
}

/** Anything that is not an ApiError is our bug: report it as INTERNAL, never as the caller's fault. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError('INTERNAL', `Internal error in the emulator: ${message}`);
}

/** Google's REST error envelope. */
export function restErrorBody(err: ApiError): unknown {
  const error: Record<string, unknown> = {
    code: STATUSES[err.status].http,
    message: err.message,
    status: err.status,
  };
  const details: unknown[] = [...err.details];
  if (err.fieldViolations.length > 0) {
    details.unshift({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: err.fieldViolations,
    });
  }
  if (details.length > 0) error['details'] = details;
  return { error };
}
