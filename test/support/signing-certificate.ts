/**
 * A self-made RSA key and X.509 certificate (openssl), standing for a vendor's published signing
 * certificate (Amazon SNS's) in tests: AWS's private key being AWS's, messages are signed with
 * this one and the certificate is served from a loopback port (serveCertificate) or handed over
 * directly. PayPal's certificates too (test/gateway/signature-paypal.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * This process's `slot`th key and certificate, made on first use and shared by the test files
 * the process runs: an RSA key costs openssl about 0.15 CPU-s, and mocha's workers each run many
 * files. Valid for two days from its making, as a fresh one; only read, never changed.
 */
export function sharedSigningCertificate(slot: 0 | 1): SigningCertificate {
  shared[slot] ??= makeSigningCertificate();
  return shared[slot];
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
