/**
 * A self-made RSA key and X.509 certificate (openssl), standing for a vendor's published signing
 * certificate (Amazon SNS's) in tests: AWS's private key being AWS's, messages are signed with
 * this one and the certificate is served from a loopback port (serveCertificate) or handed over
 * directly. PayPal's certificates too (test/gateway/signature-paypal.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface SigningCertificate {
  readonly key: string;
  readonly cert: string;
}

/** A fresh key and self-signed certificate, valid from now for `days` days. */
export function makeSigningCertificate(days = 2): SigningCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'signing-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert].concat([
        '-days',
        String(days),
        '-subj',
        '/CN=sns.amazonaws.com',
      ]),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const shared: SigningCertificate[] = [];

/** Where the shared pairs are kept between runs: beside the other caches, never committed. */
export const KEPT_CERTIFICATES = join(
  import.meta.dirname,
  '../../node_modules/.cache/eventbus-signing-certificates',
);

const DAY_MS = 86_400_000;

/**
 * The `slot`th key and certificate, shared by every test file and process that asks, and made
 * again once less than a day of its two days is left: an RSA key costs openssl 0.15–0.3 CPU-s,
 * and each of mocha's workers asked for two on every run. Kept under `dir` (a whole file, by a
 * rename); one that cannot be read, is not valid now, or whose key is not the certificate's is
 * made again. Only read, never changed.
 */
export function sharedSigningCertificate(slot: 0 | 1, dir = KEPT_CERTIFICATES): SigningCertificate {
  shared[slot] ??= keptCertificate(join(dir, `slot-${slot}.json`), Date.now());
  return shared[slot];
}

/** The pair kept in `file` if it is good at `now` for a day more, otherwise a new one kept there. */
export function keptCertificate(
  file: string,
  now: number,
  make: () => SigningCertificate = makeSigningCertificate,
): SigningCertificate {
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as SigningCertificate;
    const x509 = new X509Certificate(kept.cert);
    const valid = x509.validFromDate.getTime() <= now && x509.validToDate.getTime() - now >= DAY_MS;
    if (valid && x509.checkPrivateKey(createPrivateKey(kept.key))) return kept;
  } catch {
    // Not kept yet, or half written: made below.
  }
  const made = make();
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(made));
    renameSync(tmp, file);
  } catch {
    // A read-only checkout: made again next time.
  }
  return made;
}

/** A loopback server standing for a vendor's certificate host: what it served, and a switch to fail. */
export interface CertificateServer {
  readonly port: number;
  /** The paths asked for, in order (reset by the test). */
  hits: string[];
  /** When set, every request is answered 503. */
  down: boolean;
  /**
   * A `fetch` for the gateway's deps that sends a URL on `host` (only) to this server, keeping
   * its path: the gateway pins the vendor's URL as sent, this maps the pinned host to loopback.
   */
  fetchFor(host: string, seen: string[]): typeof fetch;
  close(): Promise<void>;
}

/** Serves `cert` at `path` on 127.0.0.1 (any other path is 404). */
export async function serveCertificate(cert: string, path: string): Promise<CertificateServer> {
  const state = { hits: [] as string[], down: false };
  const server = createServer((req, res) => {
    state.hits.push(req.url ?? '');
    if (state.down || req.url !== path) return void res.writeHead(state.down ? 503 : 404).end();
    res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(cert);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    port,
    fetchFor:
      (host: string, seen: string[]): typeof fetch =>
      async (input, init) => {
        const url = new URL(String(input));
        seen.push(url.href);
        if (url.hostname !== host) throw new Error(`only ${host} is fetched, not ${url.hostname}`);
        return fetch(`http://127.0.0.1:${port}${url.pathname}`, init);
      },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
