/**
 * Sends a driver's request with fetch, bounded by a timeout, and reports every outcome as
 * data: a response (any status) or a network error (timeout, refused connection, DNS...).
 * Redirects are not followed: a signed body must reach the URL it was signed for.
 */
import type { InboundResponse, OutboundRequest } from '../core/delivery/driver.ts';

/** Bodies of platform answers are kept up to this size (they end up in ledger reasons). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export type Sender = (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;

/** A sender over the given fetch (global fetch by default; tests inject their own). */
export function createHttpSender(fetchImpl: typeof fetch = fetch): Sender {
  return async (request, timeoutMs) => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetchImpl(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal,
      });
      const body = await readCapped(response, MAX_RESPONSE_BYTES);
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => {
        headers[key] = value;
      });
      return { kind: 'response', status: response.status, headers, body };
    } catch (err) {
      return { kind: 'network_error', message: describe(err, request, timeoutMs, signal) };
    }
  };
}

async function readCapped(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  // Stop reading a body that is larger than we keep; the connection is not reused.
  if (size >= limit) await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function describe(err: unknown, request: OutboundRequest, timeoutMs: number, signal: AbortSignal): string {
  if (signal.aborted) return `timeout after ${timeoutMs} ms (${request.redactedUrl})`;
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e.cause?.code ?? e.cause?.message;
  return `${e.message ?? String(err)}${cause ? ` (${cause})` : ''} (${request.redactedUrl})`;
}
