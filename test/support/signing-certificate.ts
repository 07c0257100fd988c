/**
 * A self-made RSA key and X.509 certificate (openssl), standing for a vendor's published signing
 * certificate (Amazon SNS's) in tests: AWS's private key being AWS's, messages are signed with
 * this one and the certificate is served from a loopback port (or handed over directly).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
