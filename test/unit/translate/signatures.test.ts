/**
 * core/translate/signatures.ts, the generic `hmac` scheme's kinds, each checked against a sample
 * its vendor computed (test/fixtures/signatures/SOURCES.md): `url_form` against Twilio's SDK
 * fixtures, `method_url_body_timestamp` against HubSpot's signer, HMAC-MD5 against RFC 2202; a
 * wrong secret, a tampered body and a stale timestamp refused with their reasons; and how a
 * verified delivery is named for the replay memory.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Signature as HubSpotSignature } from '@hubspot/api-client';
import {
  type SignatureCheck,
  type SignedRequest,
  signRequest,
  sortedFormParts,
  verifySignature,
} from '../../../core/translate/signatures.ts';
import type { TranslatorSignature } from '../../../schemas/translator-signature.ts';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../fixtures/signatures/${name}`, import.meta.url), 'utf8')) as T;

const request = (
  over: Partial<Omit<SignedRequest, 'header'>> & { headers?: Record<string, string> },
): SignedRequest => {
  const headers = Object.fromEntries(
    Object.entries(over.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
  );
  return {
    method: over.method ?? 'POST',
    url: over.url ?? 'https://gateway.example/v1/translators/t',
    header: (h) => headers[h],
    body: over.body ?? Buffer.from(''),
  };
};

const check = (sig: TranslatorSignature, req: SignedRequest, secret: string, now = Date.now()) =>
  verifySignature(sig, req, [secret], now) as SignatureCheck;

const reason = (c: SignatureCheck) => (c.ok ? 'ok' : c.reason);

describe('signatures: the generic hmac scheme', () => {
  describe('signed: url_form (Twilio)', () => {
    const twilio = fixture<{
      token: string;
      requests: { name: string; url: string; params: Record<string, string>; signature: string }[];
    }>('twilio-request-validator.json');
    const sig: TranslatorSignature = {
      scheme: 'hmac',
      secrets: ['TWILIO_AUTH_TOKEN'],
      header: 'X-Twilio-Signature',
      algorithm: 'sha1',
      encoding: 'base64',
      signed: 'url_form',
    };
    const form = (params: Record<string, string>) => Buffer.from(new URLSearchParams(params).toString());

    for (const r of twilio.requests)
      it(`verifies Twilio's own ${r.name} request signature (twilio-ruby's fixture), and refuses it under another token or with a changed parameter`, () => {
        const headers = { 'X-Twilio-Signature': r.signature };
        const req = request({ url: r.url, body: form(r.params), headers });
        assert.deepEqual(reason(check(sig, req, twilio.token)), 'ok');
        assert.equal(reason(check(sig, req, 'another-token')), 'bad_signature');
        const changed = request({ url: r.url, body: form({ ...r.params, From: '+15550000000' }), headers });
        assert.equal(reason(check(sig, changed, twilio.token)), 'bad_signature');
        const elsewhere = request({ url: `${r.url}?x=1`, body: form(r.params), headers });
        assert.equal(reason(check(sig, elsewhere, twilio.token)), 'bad_signature');
      });

    it('signs the parameters decoded, sorted by name (a repeated name by value), whatever order they came in', () => {
      assert.deepEqual(sortedFormParts(Buffer.from('b=2&a=x+y&a=%2B1&c=')), ['a+1', 'ax y', 'b2', 'c']);
      const url = 'https://gateway.example/v1/translators/sms?key=1';
      const headers = signRequest(sig, 's', { method: 'POST', url, body: 'b=2&a=1' }, 0);
      assert.equal(reason(check(sig, request({ url, body: Buffer.from('a=1&b=2'), headers }), 's')), 'ok');
    });
  });

  describe('signed: method_url_body_timestamp (HubSpot v3’s bytes, any header)', () => {
    const sig: TranslatorSignature = {
      scheme: 'hmac',
      secrets: ['APP_SECRET'],
      header: 'X-HubSpot-Signature-v3',
      encoding: 'base64',
      signed: 'method_url_body_timestamp',
      timestamp_header: 'X-HubSpot-Request-Timestamp',
    };
    const url = 'https://gateway.example/v1/translators/crm';
    const body = '[{"eventId":1,"subscriptionType":"contact.creation","objectId":123}]';
    const hubspot = (secret: string, ms: number) =>
      HubSpotSignature.getSignature('POST', 'v3', {
        signature: '', // its type asks for one; getSignature does not read it
        clientSecret: secret,
        url,
        requestBody: body,
        timestamp: ms,
      });
    const req = (signature: string, ms: number | string, text = body) =>
      request({
        url,
        body: Buffer.from(text),
        headers: { 'X-HubSpot-Signature-v3': signature, 'X-HubSpot-Request-Timestamp': String(ms) },
      });

    it('verifies a signature made by HubSpot’s own signer (milliseconds); refuses another secret, body or method', () => {
      const now = Date.now();
      assert.equal(reason(check(sig, req(hubspot('secret', now), now), 'secret', now)), 'ok');
      assert.equal(reason(check(sig, req(hubspot('other', now), now), 'secret', now)), 'bad_signature');
      assert.equal(
        reason(check(sig, req(hubspot('secret', now), now, `${body} `), 'secret', now)),
        'bad_signature',
      );
      const put = { ...req(hubspot('secret', now), now), method: 'PUT' };
      assert.equal(reason(check(sig, put, 'secret', now)), 'bad_signature');
    });

    it('refuses a stale timestamp (once the digest matched), a changed one, and none', () => {
      const now = Date.now();
      const old = now - 301_000;
      const stale = check(sig, req(hubspot('secret', old), old), 'secret', now);
      assert.equal(reason(stale), 'stale_signature');
      assert.match(stale.ok ? '' : stale.detail, /x-hubspot-request-timestamp is more than 300 s old/);
      // A replayer cannot freshen the timestamp: it is signed.
      assert.equal(reason(check(sig, req(hubspot('secret', old), now), 'secret', now)), 'bad_signature');
      assert.equal(reason(check(sig, req(hubspot('other', old), old), 'secret', now)), 'bad_signature');
      const none = request({ url, body: Buffer.from(body), headers: { 'X-HubSpot-Signature-v3': 'abc=' } });
      assert.equal(reason(check(sig, none, 'secret', now)), 'malformed_signature');
    });

    it('takes seconds too, and its tolerance_seconds', () => {
      const now = Date.now();
      const s = Math.floor(now / 1000) - 500;
      const headers = signRequest(sig, 'k', { method: 'POST', url, body }, s);
      assert.equal(headers['x-hubspot-request-timestamp'], String(s));
      const r = request({ url, body: Buffer.from(body), headers });
      assert.equal(reason(check(sig, r, 'k', now)), 'stale_signature');
      assert.equal(reason(check({ ...sig, tolerance_seconds: 600 }, r, 'k', now)), 'ok');
    });
  });

  describe('algorithm: md5', () => {
    const md5 = fixture<{ key: string; data: string; digest: string }>('rfc2202-hmac-md5.json');
    const sig: TranslatorSignature = {
      scheme: 'hmac',
      secrets: ['S'],
      header: 'X-Signature',
      algorithm: 'md5',
    };

    it('verifies RFC 2202’s HMAC-MD5 test case; refuses another key', () => {
      const req = request({ body: Buffer.from(md5.data), headers: { 'X-Signature': md5.digest } });
      assert.equal(reason(check(sig, req, md5.key)), 'ok');
      assert.equal(reason(check(sig, req, 'Jeff')), 'bad_signature');
      assert.deepEqual(signRequest(sig, md5.key, { method: 'POST', url: '', body: md5.data }, 0), {
        'x-signature': md5.digest,
      });
    });

    it('in base64 with a prefix too', () => {
      const b64 = { ...sig, encoding: 'base64', prefix: 'md5=' } as const;
      const value = `md5=${Buffer.from(md5.digest, 'hex').toString('base64')}`;
      const req = request({ body: Buffer.from(md5.data), headers: { 'X-Signature': value } });
      assert.equal(reason(check(b64, req, md5.key)), 'ok');
    });
  });
});

describe('signatures: a verified delivery’s name (the replay memory’s)', () => {
  const body = Buffer.from('{"id":"evt_1"}');
  const delivered = (sig: TranslatorSignature, extra: Record<string, string>, at: number) => {
    const headers = { ...signRequest(sig, 'k', { method: 'POST', url: 'https://g/x', body }, at), ...extra };
    const c = check(sig, request({ url: 'https://g/x', body, headers }), 'k', at * 1000);
    assert.ok(c.ok);
    return c.delivery;
  };

  it('is the vendor’s delivery id header where the scheme names one (GitHub’s, Shopify’s, an hmac’s)', () => {
    assert.equal(
      delivered({ scheme: 'github', secrets: ['S'] }, { 'x-github-delivery': 'd-1' }, 1),
      'x-github-delivery:d-1',
    );
    assert.equal(
      delivered({ scheme: 'shopify', secrets: ['S'] }, { 'x-shopify-webhook-id': 'w-1' }, 1),
      'x-shopify-webhook-id:w-1',
    );
    const generic: TranslatorSignature = { scheme: 'hmac', secrets: ['S'], delivery_id_header: 'X-Delivery' };
    assert.equal(delivered(generic, { 'x-delivery': 'q-9' }, 1), 'x-delivery:q-9');
  });

  it('is else the digest of the signed bytes: the same body the same name; a Stripe retry (new t) another', () => {
    const github: TranslatorSignature = { scheme: 'github', secrets: ['S'] };
    assert.match(delivered(github, {}, 1), /^sha256:[A-Za-z0-9_-]{43}$/);
    assert.equal(delivered(github, {}, 1), delivered(github, {}, 2));
    const stripe: TranslatorSignature = { scheme: 'stripe', secrets: ['S'] };
    const now = Math.floor(Date.now() / 1000);
    assert.equal(delivered(stripe, {}, now), delivered(stripe, {}, now));
    assert.notEqual(delivered(stripe, {}, now), delivered(stripe, {}, now - 60));
  });
});
