/**
 * The errors the emulator answers with, as gRPC statuses. A caller's mistake is INVALID_ARGUMENT,
 * NOT_FOUND, ALREADY_EXISTS or FAILED_PRECONDITION, never UNKNOWN or INTERNAL: Google's clients
 * retry some codes (UNAVAILABLE, DEADLINE_EXCEEDED), so the code must be the one Bigtable gives.
 */
import { type Metadata, status } from '@grpc/grpc-js';

export type StatusName =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'PERMISSION_DENIED'
  | 'UNAUTHENTICATED'
  | 'UNIMPLEMENTED'
  | 'INTERNAL';

export class BigtableError extends Error {
  readonly status: StatusName;
  /** Trailers sent with the status (an IAM refusal's ErrorInfo: access.ts). */
  readonly trailers: Metadata | undefined;

  constructor(name: StatusName, message: string, trailers?: Metadata) {
    super(message);
    this.status = name;
    this.trailers = trailers;
  }

  get code(): status {
    return status[this.status];
  }
}

export const invalid = (message: string): BigtableError => new BigtableError('INVALID_ARGUMENT', message);

export const unsupported = (what: string): BigtableError =>
  new BigtableError('UNIMPLEMENTED', `${what} is not supported by the local Bigtable emulator.`);

/** A gRPC error for `err`: a BigtableError as it is, anything else our bug (INTERNAL). */
export function grpcError(err: unknown): { code: status; details: string; metadata?: Metadata } {
  if (err instanceof BigtableError)
    return {
      code: err.code,
      details: err.message,
      ...(err.trailers !== undefined ? { metadata: err.trailers } : {}),
    };
  const message = err instanceof Error ? err.message : String(err);
  return { code: status.INTERNAL, details: `Internal error in the emulator: ${message}` };
}
