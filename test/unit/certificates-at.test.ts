/**
 * Where the gateway fetches signing certificates from (gateway/signing-certificates.ts,
 * `certificatesAt`): unset, the sender's URL as it is; with EVENTBUS_CERTIFICATE_ORIGIN, the same
 * path and query at that origin; a value that is not an origin stops the gateway at start.
 */
import assert from 'node:assert/strict';
import { certificatesAt } from '../../gateway/signing-certificates.ts';

/** A fetch that records the URLs it is asked for and answers 204. */
function recording(): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: async (input) => {
      urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      return new Response(null, { status: 204 });
    },
  };
}

const PAYPAL = 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42?x=1';

describe('certificatesAt: where signing certificates are fetched from', () => {
  it('fetches the URL as sent when no origin is configured', async () => {
    for (const origin of [undefined, '']) {
      const r = recording();
      await certificatesAt(r.fetch, origin)(PAYPAL);
      assert.deepEqual(r.urls, [PAYPAL]);
    }
  });

  it('fetches the same path and query at the configured origin', async () => {
    const r = recording();
    const at = certificatesAt(r.fetch, 'http://127.0.0.1:40123/');
    await at(PAYPAL);
    await at(new URL('https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-9c64.pem'));
    assert.deepEqual(r.urls, [
      'http://127.0.0.1:40123/v1/notifications/certs/CERT-360caa42?x=1',
      'http://127.0.0.1:40123/SimpleNotificationService-9c64.pem',
    ]);
  });

  it('refuses at start a value that is not an http(s) origin', () => {
    for (const bad of ['127.0.0.1:40123', 'http://127.0.0.1:40123/certs', 'file:///tmp/cert.pem', 'x'])
      assert.throws(
        () => certificatesAt(recording().fetch, bad),
        /EVENTBUS_CERTIFICATE_ORIGIN: .* is not an origin/,
      );
  });
});
