/**
 * The per-ack-id answer of an exactly-once subscription (docs/google-wire.md §2): an
 * INVALID_ARGUMENT whose `grpc-status-details-bin` trailer holds a `google.rpc.Status` with one
 * `google.rpc.ErrorInfo`, whose metadata maps each failed ack id to its failure
 * (`PERMANENT_FAILURE_INVALID_ACK_ID`, or a `TRANSIENT_…` one). Google's client reads exactly that
 * map to fail (or retry) each `ackWithResponse()` promise. The encoding is the shared one
 * (emulators/common/grpc-status.ts).
 */
import { statusWithErrorInfo } from '@eventbus/emulator-common/grpc-status.ts';
import * as grpc from '@grpc/grpc-js';
import { ApiError } from './errors.ts';

/** An ApiError that also carries gRPC trailers (and, for REST, the same details as JSON). */
export class DetailedApiError extends ApiError {
  readonly grpcMetadata: grpc.Metadata;
  constructor(
    status: ApiError['status'],
    message: string,
    metadata: grpc.Metadata,
    details: readonly unknown[] = [],
  ) {
    super(status, message, [], details);
    this.grpcMetadata = metadata;
  }
}

const INVALID_ACK_IDS =
  'Some acknowledgement ids in the request were invalid. This could be because the acknowledgement ids have expired or the acknowledgement ids were malformed.';

/** The error Pub/Sub answers an exactly-once ack or modack with when some ids failed. */
export function exactlyOnceAckError(failures: ReadonlyMap<string, string>): DetailedApiError {
  const metadata = new grpc.Metadata();
  metadata.set(
    'grpc-status-details-bin',
    statusWithErrorInfo(3, INVALID_ACK_IDS, 'EXACTLY_ONCE_ACKID_FAILURE', 'pubsub.googleapis.com', failures),
  );
  return new DetailedApiError('INVALID_ARGUMENT', INVALID_ACK_IDS, metadata);
}
