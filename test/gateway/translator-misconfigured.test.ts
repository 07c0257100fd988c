/**
 * No caller reaches a 5xx by being unauthenticated (issue #98): a request with no signature to a
 * translator whose signing secret the gateway may not read (or that has no value) gets 401, the
 * refusal any unsigned request gets, before any secret is read; a signed one still gets 503 (ours
 * to fix; the vendor retries), and the misconfiguration is logged once per instance, not per request.
 */
import assert from 'node:assert/strict';
import { SecretAccessDenied } from '../../adapters/secrets.ts';
import { createReplayMemory } from '../../gateway/idempotency.ts';
import { type DeliveryCheckDeps, verifyDelivery } from '../../gateway/translate.ts';
import type { TranslatorSignature } from '../../schemas/translator-signature.ts';

const STRIPE = { scheme: 'stripe', secrets: ['eventbus-translator-stripe'] } as TranslatorSignature;

function deps(get: (name: string) => Promise<string | undefined>) {
  const logged: Record<string, unknown>[] = [];
  let reads = 0;
  const d: DeliveryCheckDeps = {
    secrets: {
      get: (name) => {
        reads++;
        return get(name);
      },
    },
    certificates: () => {
      throw new Error('no certificate is fetched here');
    },
    replays: createReplayMemory(),
    now: Date.now(),
    log: (entry) => logged.push(entry),
  };
  return { d, logged, reads: () => reads };
}

const request = (headers: Record<string, string>) => ({
  method: 'POST',
  url: 'https://collect.example/v1/translators/stripe',
  header: (h: string) => headers[h],
  body: Buffer.from('{"type":"charge.succeeded"}'),
});

describe('translator auth: a misconfigured translator never turns an unsigned request into a 5xx', () => {
  const cases: [string, (name: string) => Promise<string | undefined>][] = [
    [
      'its secret may not be read',
      (name) =>
        Promise.reject(
          new SecretAccessDenied(name, 'secretmanager.versions.access', 'serviceAccount:gw@p', 'denied'),
        ),
    ],
    ['its secret has no value', async () => undefined],
  ];
  for (const [why, get] of cases) {
    it(`${why}: no signature → 401, nothing read, nothing logged`, async () => {
      const { d, logged, reads } = deps(get);
      for (const headers of [{}, { 'stripe-signature': '  ' }]) {
        const check = await verifyDelivery('stripe', STRIPE, request(headers), d);
        assert.ok(!check.ok);
        assert.equal(check.error.http, 401, JSON.stringify(check.error));
        assert.equal(check.reason, 'missing_signature');
      }
      assert.equal(reads(), 0, 'no secret read for a request that cannot authenticate');
      assert.deepEqual(logged, []);
    });
  }

  it('a signed request to a translator whose secret may not be read: 503 each time, the ERROR line once', async () => {
    const { d, logged } = deps((name) =>
      Promise.reject(new SecretAccessDenied(name, 'secretmanager.versions.access', undefined, 'denied')),
    );
    for (let i = 0; i < 5; i++) {
      const check = await verifyDelivery(
        'stripe-once',
        STRIPE,
        request({ 'stripe-signature': 't=1,v1=ab' }),
        d,
      );
      assert.ok(!check.ok);
      assert.equal(check.error.http, 503);
    }
    assert.equal(logged.filter((l) => l['severity'] === 'ERROR').length, 1);
    assert.match(
      String(logged[0]?.['message']),
      /may not read its signing secret eventbus-translator-stripe/,
    );
  });
});
