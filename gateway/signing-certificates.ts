/**
 * The signing certificates of senders that sign with a published key (Amazon SNS:
 * core/translate/signature-sns.ts), fetched through the injected `fetch` and kept by URL: at
 * most MAX_CERTIFICATES, each for a day, the oldest dropped first. The URL was pinned to the
 * vendor's domain before it gets here; a redirect is refused (it could leave that domain), the
 * answer must be 2xx, PEM and small. A failed fetch is not kept, so the next delivery tries
 * again; concurrent deliveries naming one URL share one fetch. Where the certificates are
 * fetched from may be configured (`certificatesAt`): an endpoint, as Google's APIs have theirs.
 */
import { X509Certificate } from 'node:crypto';
import type { MaybePromise } from '../core/maybe-async.ts';
import { ENV } from '../core/runtime-config.ts';
import type { CertificateAnswer, CertificateSource } from '../core/translate/signature-sns.ts';

/** Certificates kept at most (SNS uses one per region and rotation: a handful). */
export const MAX_CERTIFICATES = 64;
/** How long a certificate is kept before it is fetched again. */
export const CERTIFICATE_TTL_MS = 24 * 60 * 60 * 1000;
/** A certificate larger than this is not one (SNS's are about 2 KB). */
const MAX_PEM_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 5000;

export interface CertificateCache {
  readonly source: CertificateSource;
  readonly size: number;
}

/** A cache of certificates over `fetchFn` (global fetch in production; a loopback stand-in in tests). */
export function createCertificateCache(
  fetchFn: typeof fetch,
  now: () => number,
  max = MAX_CERTIFICATES,
  ttlMs = CERTIFICATE_TTL_MS,
): CertificateCache {
  const kept = new Map<string, { at: number; answer: MaybePromise<CertificateAnswer> }>();
  const load = async (url: string): Promise<CertificateAnswer> => {
    try {
      const res = await fetchFn(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!res.ok) return { ok: false, detail: `the signing certificate answered ${res.status}` };
      const text = await res.text();
      if (text.length > MAX_PEM_BYTES || !text.includes('-----BEGIN CERTIFICATE-----'))
        return { ok: false, detail: 'the signing certificate URL did not answer with a PEM certificate' };
      return { ok: true, certificate: new X509Certificate(text) };
    } catch (err) {
      return { ok: false, detail: `the signing certificate could not be fetched: ${(err as Error).message}` };
    }
  };
  return {
    source: (url) => {
      const t = now();
      const known = kept.get(url);
      if (known && t - known.at < ttlMs) return known.answer;
      const answer = load(url);
      kept.delete(url);
      kept.set(url, { at: t, answer });
      if (kept.size > max) kept.delete(kept.keys().next().value as string);
      // Once fetched the value is at hand (no promise per delivery); a failure is not kept.
      void answer.then((a) => {
        const entry = kept.get(url);
        if (entry?.answer !== answer) return;
        if (a.ok) entry.answer = a;
        else kept.delete(url);
      });
      return answer;
    },
    get size() {
      return kept.size;
    },
  };
}

/**
 * `fetchFn` fetching every certificate from `origin` (ENV.certificateOrigin) instead of
 * the vendor's host, keeping the path and query; unset, `fetchFn` itself. The sender's URL was
 * pinned to the vendor's hosts before (the pin sees the URL as sent) and the cache keys on it:
 * only where the bytes come from differs, as an emulator host does for Google's APIs. The request
 * still goes through the egress gate, so the origin must be on its allow-list too. Throws at
 * start on a value that is not an http(s) origin.
 */
export function certificatesAt(fetchFn: typeof fetch, origin: string | undefined): typeof fetch {
  if (origin === undefined || origin === '') return fetchFn;
  const base = URL.canParse(origin) ? new URL(origin) : undefined;
  if (
    !base ||
    (base.protocol !== 'http:' && base.protocol !== 'https:') ||
    base.origin !== origin.replace(/\/$/, '')
  )
    throw new Error(`${ENV.certificateOrigin}: "${origin}" is not an origin such as http://127.0.0.1:8099`);
  return (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return fetchFn(`${base.origin}${url.pathname}${url.search}`, init);
  };
}
