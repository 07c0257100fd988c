/**
 * A gRPC refusal's details as Google's services send them: the `grpc-status-details-bin` trailer
 * holding a `google.rpc.Status` with one `google.rpc.ErrorInfo` (reason, domain, metadata), which
 * Google's clients decode (Pub/Sub's exactly-once acks, every service's IAM_PERMISSION_DENIED).
 * Encoded by hand, three small messages, so that no emulator needs the protos for it.
 */

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
