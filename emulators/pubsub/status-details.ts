/**
 * The per-ack-id answer of an exactly-once subscription (docs/google-wire.md §2): an
 * INVALID_ARGUMENT whose `grpc-status-details-bin` trailer holds a `google.rpc.Status` with one
 * `google.rpc.ErrorInfo`, whose metadata maps each failed ack id to its failure
 * (`PERMANENT_FAILURE_INVALID_ACK_ID`, or a `TRANSIENT_…` one). Google's client reads exactly that
 * map to fail (or retry) each `ackWithResponse()` promise. Encoded by hand: three small messages.
 */
import * as grpc from '@grpc/grpc-js';
import { ApiError } from './errors.ts';

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

/** A length-delimited field (wire type 2). */
function field(num: number, body: Buffer | string): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([varint((num << 3) | 2), varint(bytes.length), bytes]);
}

/** `google.rpc.Status{code, message, details: [Any(ErrorInfo{reason, domain, metadata})]}`. */
export function statusWithErrorInfo(
  code: number,
  message: string,
  reason: string,
  domain: string,
  metadata: ReadonlyMap<string, string>,
): Buffer {
  const entries = [...metadata].map(([k, v]) => field(3, Buffer.concat([field(1, k), field(2, v)])));
  const info = Buffer.concat([field(1, reason), field(2, domain), ...entries]);
  const any = Buffer.concat([field(1, 'type.googleapis.com/google.rpc.ErrorInfo'), field(2, info)]);
  return Buffer.concat([varint(1 << 3), varint(code), field(2, message), field(3, any)]);
}

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
