/**
 * Google credentials as request headers, cached. google-auth-library (10.x) answers
 * `getRequestHeaders()` with a fetch `Headers` and refreshes a token 5 minutes before it expires,
 * so a value it gave stays valid for minutes: it is reused for a minute without asking (a call
 * then awaits nothing; asking costs ~4 µs even when the library has the token), asked again in
 * the background after that, and waited for past 4 minutes. `invalidate()` (on an
 * UNAUTHENTICATED / HTTP 401 answer) drops it. Used by the hand-rolled clients on hot paths:
 * the gateway's Publish (adapters/publisher.ts) and the warehouse writers' insertAll
 * (adapters/bigquery-rest.ts).
 */
import type { CallCredentials } from './grpc-unary.ts';

/** What answers with fresh headers: google-auth-library's GoogleAuth or an auth client. */
export interface HeaderSource {
  getRequestHeaders(): Promise<{ forEach(fn: (value: string, key: string) => void): void }>;
}

const REUSE_MS = 60_000;
const MAX_AGE_MS = 240_000;

export function cachedCredentials(source: HeaderSource, now: () => number = Date.now): CallCredentials {
  let value: Readonly<Record<string, string>> | undefined;
  let at = 0;
  let asking: Promise<Readonly<Record<string, string>>> | undefined;
  const ask = () => {
    asking ??= source
      .getRequestHeaders()
      .then((h) => {
        const out: Record<string, string> = {};
        h.forEach((v, k) => {
          out[k] = v;
        });
        value = out;
        at = now();
        return out;
      })
      .finally(() => {
        asking = undefined;
      });
    return asking;
  };
  return {
    headers() {
      const age = now() - at;
      if (value === undefined || age > MAX_AGE_MS) return ask();
      if (age > REUSE_MS) ask().catch(() => {}); // the current value still holds meanwhile
      return value;
    },
    invalidate() {
      value = undefined;
    },
  };
}

/**
 * Headers for an OTLP/HTTP exporter to Google's Telemetry API (`telemetry.googleapis.com`): the
 * workload's credentials for `scope`, cached as above; undefined for any other endpoint (a local
 * receiver takes none). google-auth-library is loaded on the first export: the gateway's bundle
 * keeps Google's clients as vendor files that loading its main file never reads.
 */
export function telemetryHeaders(
  endpoint: string,
  scope: string,
): (() => Promise<Record<string, string>>) | undefined {
  if (new URL(endpoint).hostname !== 'telemetry.googleapis.com') return undefined;
  let credentials: CallCredentials | undefined;
  return async () => {
    const { GoogleAuth } = await import('google-auth-library');
    credentials ??= cachedCredentials(new GoogleAuth({ scopes: [scope] }));
    return { ...(await credentials.headers()) };
  };
}
