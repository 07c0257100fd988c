/**
 * core/signing/standard-webhooks.ts, the one module that signs and verifies Standard Webhooks
 * (and Svix) deliveries: the specification's published test vector; our signatures accepted by
 * the `standardwebhooks` and `svix` packages' own `Webhook.verify`, and theirs by ours; a key
 * rotation (two secrets, two space-separated entries); and each refusal with its reason. Then
 * the same through a translator's `signature` (verifySignature/signRequest), where the message
 * id names the delivery for the replay memory.
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { type StandardDelivery, secretKey, sign, verify } from '../../../core/signing/standard-webhooks.ts';
import { headerViolations, readableHeaders } from '../../../core/translate/headers.ts';
import { translate } from '../../../core/translate/index.ts';
import { keyedBySignature } from '../../../core/translate/signature-header.ts';
import {
  type SignatureCheck,
  type SignedRequest,
  signRequest,
  verifySignature,
} from '../../../core/translate/signatures.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';
import type { TranslatorSignature } from '../../../schemas/translator-signature.ts';

// The test vector the Standard Webhooks libraries share (secret, id, timestamp, body, signature).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('signing: Standard Webhooks', () => {
  it('reproduces the specification’s test vector, and verifies it at its own time', () => {
    assert.equal(sign({ ...VECTOR, secrets: [VECTOR.secret] }), VECTOR.signature);
    const at = VECTOR.timestamp * 1000;
    const delivery = {
      id: VECTOR.id,
      timestamp: String(VECTOR.timestamp),
      signature: VECTOR.signature,
      body: VECTOR.body,
      secrets: [VECTOR.secret],
      toleranceSeconds: 300,
    };
    assert.deepEqual(verify({ ...delivery, nowMs: at }), { ok: true });
    // The key pasted without its prefix is the same key.
    assert.deepEqual(verify({ ...delivery, nowMs: at, secrets: ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] }), {
      ok: true,
    });
    const stale = verify({ ...delivery, nowMs: at + 301_000 });
    assert.equal(stale.ok ? 'ok' : stale.reason, 'stale_signature');
  });

  it('a Standard Webhooks-signed delivery verified with rotation', () => {
    const [oldKey, newKey] = [newSecret(), newSecret()];
    const message = { id: 'msg_rotation_1', timestamp: nowSeconds(), body: '{"type":"invoice.paid"}' };
    const header = sign({ ...message, secrets: [newKey, oldKey] });
    const entries = header.split(' ');
    assert.equal(entries.length, 2, 'one v1 entry per secret, space-separated');
    assert.ok(entries.every((e) => e.startsWith('v1,')));
    const delivery = {
      id: message.id,
      timestamp: String(message.timestamp),
      signature: header,
      body: message.body,
      nowMs: Date.now(),
      toleranceSeconds: 300,
    };
    // A receiver holding either key, or both, accepts it; one holding neither refuses it.
    for (const secrets of [[oldKey], [newKey], [newKey, oldKey]])
      assert.deepEqual(verify({ ...delivery, secrets }), { ok: true });
    const other = verify({ ...delivery, secrets: [newSecret()] });
    assert.equal(other.ok ? 'ok' : other.reason, 'bad_signature');
    // Each vendor library, given either key, accepts the header we made.
    const headers = {
      'webhook-id': message.id,
      'webhook-timestamp': String(message.timestamp),
      'webhook-signature': header,
    };
    for (const key of [oldKey, newKey]) {
      assert.deepEqual(new StandardWebhook(key).verify(message.body, headers), { type: 'invoice.paid' });
      const svixHeaders = {
        'svix-id': message.id,
        'svix-timestamp': headers['webhook-timestamp'],
        'svix-signature': header,
      };
      // svix's verify returns nothing: it throws a WebhookVerificationError on a refused delivery.
      assert.doesNotThrow(() => new SvixWebhook(key).verify(message.body, svixHeaders));
      assert.throws(() => new SvixWebhook(newSecret()).verify(message.body, svixHeaders), /signature/i);
    }
    // A receiver still on the old key only, during the sender's rotation: their two signatures, ours verifies.
    const theirs = [newKey, oldKey]
      .map((k) => new StandardWebhook(k).sign(message.id, new Date(message.timestamp * 1000), message.body))
      .join(' ');
    assert.equal(theirs, header, 'the same bytes as the reference library signs');
    assert.deepEqual(verify({ ...delivery, signature: theirs, secrets: [oldKey] }), { ok: true });
  });

  it('verifies what the svix and standardwebhooks packages sign', () => {
    const key = newSecret();
    const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
    const at = new Date(nowSeconds() * 1000);
    const body = '{"type":"contact.created","data":{"id":"c_1"}}';
    for (const signature of [
      new SvixWebhook(key).sign(id, at, body),
      new StandardWebhook(key).sign(id, at, body),
    ])
      assert.deepEqual(
        verify({
          id,
          timestamp: String(at.getTime() / 1000),
          signature,
          body,
          secrets: [key],
          nowMs: Date.now(),
          toleranceSeconds: 300,
        }),
        { ok: true },
      );
  });

  it('refuses a tampered body or id, a missing header, a malformed entry and a key that is not base64', () => {
    const key = newSecret();
    const message = { id: 'msg_1', timestamp: nowSeconds(), body: '{"a":1}' };
    const good: StandardDelivery = {
      id: message.id,
      timestamp: String(message.timestamp),
      signature: sign({ ...message, secrets: [key] }),
      body: message.body,
      secrets: [key],
      nowMs: Date.now(),
      toleranceSeconds: 300,
    };
    const reason = (over: Partial<StandardDelivery>) => {
      const v = verify({ ...good, ...over });
      return v.ok ? 'ok' : v.reason;
    };
    assert.equal(reason({}), 'ok');
    assert.equal(reason({ body: '{"a":2}' }), 'bad_signature');
    assert.equal(reason({ id: 'msg_2' }), 'bad_signature');
    assert.equal(reason({ signature: undefined }), 'missing_signature');
    assert.equal(reason({ id: undefined }), 'missing_signature');
    assert.equal(reason({ signature: 'g0hM9SsE' }), 'malformed_signature');
    assert.equal(reason({ timestamp: '2026-11-27T00:00:00Z' }), 'malformed_signature');
    // Only v1a (asymmetric) entries: nothing this receiver can check.
    assert.equal(reason({ signature: 'v1a,AAAA' }), 'malformed_signature');
    assert.equal(reason({ secrets: ['whsec_not base64!'] }), 'no_secret');
    assert.equal(secretKey('whsec_'), undefined);
    assert.throws(() => sign({ ...message, secrets: ['whsec_!!'] }), /whsec_ followed by base64/);
  });
});

const request = (headers: Record<string, string>, body: string): SignedRequest => ({
  method: 'POST',
  url: 'https://gateway.example/v1/translators/t',
  header: (h) => headers[h],
  body: Buffer.from(body),
});

describe('signatures: the standard_webhooks and svix schemes of a translator', () => {
  for (const scheme of ['standard_webhooks', 'svix'] as const)
    it(`${scheme}: our signRequest passes verifySignature, the message id names the delivery, the other family's headers do not count`, () => {
      const sig: TranslatorSignature = { scheme, secrets: ['VENDOR_SECRET'] };
      const key = newSecret();
      const body = '{"type":"payment.succeeded"}';
      const at = nowSeconds();
      const headers = signRequest(sig, key, { method: 'POST', url: 'https://x', body }, at);
      const prefix = scheme === 'svix' ? 'svix' : 'webhook';
      assert.deepEqual(Object.keys(headers).sort(), [
        `${prefix}-id`,
        `${prefix}-signature`,
        `${prefix}-timestamp`,
      ]);
      const c = verifySignature(sig, request(headers, body), [key], Date.now()) as SignatureCheck;
      assert.deepEqual(c, { ok: true, delivery: `${prefix}-id:${headers[`${prefix}-id`]}` });
      const renamed = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [
          k.replace(prefix, prefix === 'svix' ? 'webhook' : 'svix'),
          v,
        ]),
      );
      const refused = verifySignature(sig, request(renamed, body), [key], Date.now()) as SignatureCheck;
      assert.equal(refused.ok ? 'ok' : refused.reason, 'missing_signature');
    });

  it('hmac signed: timestamp_body signs `<timestamp>.<body>` and refuses a stale timestamp', () => {
    const headerPair = { header: 'X-Webhook-Signature', timestamp_header: 'X-Webhook-Timestamp' };
    const sig: TranslatorSignature = {
      scheme: 'hmac',
      secrets: ['S'],
      prefix: 'sha256=',
      signed: 'timestamp_body',
      ...headerPair,
    };
    const body = '{"event":"order.paid"}';
    const at = 1_700_000_000;
    const headers = signRequest(sig, 'secret', { method: 'POST', url: 'https://x', body }, at);
    // The digest computed by hand: HMAC-SHA256("secret", "1700000000.{...}"), hex.
    const expected = createHmac('sha256', 'secret').update(`${at}.${body}`).digest('hex');
    assert.deepEqual(headers, {
      'x-webhook-signature': `sha256=${expected}`,
      'x-webhook-timestamp': String(at),
    });
    const ok = verifySignature(sig, request(headers, body), ['secret'], at * 1000) as SignatureCheck;
    assert.equal(ok.ok, true);
    const stale = verifySignature(
      sig,
      request(headers, body),
      ['secret'],
      (at + 301) * 1000,
    ) as SignatureCheck;
    assert.equal(stale.ok ? 'ok' : stale.reason, 'stale_signature');
    const moved = { ...headers, 'x-webhook-timestamp': String(at + 1) };
    const bad = verifySignature(sig, request(moved, body), ['secret'], at * 1000) as SignatureCheck;
    assert.equal(bad.ok ? 'ok' : bad.reason, 'bad_signature');
  });
});

describe('a delivery-id header → one: the signed message id as the key', () => {
  const base = {
    event: 'payment_received',
    format: { type: 'json' },
    fields: [{ target: 'amount', source: 'amount' }],
  } as unknown as TranslatorSpec;
  const signedBy = (scheme: 'standard_webhooks' | 'svix' | 'github'): TranslatorSpec => ({
    ...base,
    auth: { signature: { scheme, secrets: ['S'] } },
  });

  it('keys a drafted spec with no id of its own on webhook-id or svix-id, and nothing else', () => {
    assert.deepEqual(keyedBySignature(signedBy('standard_webhooks')).key, ['header:webhook-id']);
    assert.deepEqual(keyedBySignature(signedBy('svix')).key, ['header:svix-id']);
    assert.equal(keyedBySignature(signedBy('github')).key, undefined);
    assert.equal(keyedBySignature(base).key, undefined);
    const own = { ...signedBy('standard_webhooks'), key: ['id'] };
    assert.deepEqual(keyedBySignature(own).key, ['id']);
  });

  it('takes the signed id header as the key under its own scheme only', () => {
    const keyed = keyedBySignature(signedBy('standard_webhooks'));
    assert.deepEqual(headerViolations(keyed, 'spec'), []);
    const other = { ...signedBy('standard_webhooks'), key: ['header:X-Delivery'] };
    assert.match(headerViolations(other, 'spec')[0]?.description ?? '', /is not signed/);
    const crossed = { ...signedBy('svix'), key: ['header:webhook-id'] };
    assert.match(headerViolations(crossed, 'spec')[0]?.description ?? '', /is not signed/);
  });

  it('a retry with the same webhook-id and a changed body is the same event id; another message another', () => {
    const spec = keyedBySignature(signedBy('standard_webhooks'));
    const key = newSecret();
    const idOf = (body: object, headers: Record<string, string>) => {
      const text = JSON.stringify(body);
      const sent = verifySignature(
        spec.auth?.signature as TranslatorSignature,
        request(headers, text),
        [key],
        Date.now(),
      ) as SignatureCheck;
      assert.equal(sent.ok, true);
      const r = translate({
        translator: 't',
        spec,
        eventName: spec.event,
        body: Buffer.from(text),
        contentType: 'application/json',
        headers: readableHeaders(headers, spec),
      });
      assert.ok(r.ok && r.problems.length === 0, JSON.stringify(r));
      return r.rows[0]?.event['event_id'];
    };
    const signedHeaders = (id: string, text: string) => {
      const timestamp = nowSeconds();
      return {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sign({ id, timestamp, body: text, secrets: [key] }),
      };
    };
    const first = { amount: 49.9, sent_at: '2026-11-27T04:00:00Z' };
    const retry = { amount: 49.9, sent_at: '2026-11-27T04:05:00Z' };
    const a = idOf(first, signedHeaders('msg_1', JSON.stringify(first)));
    const b = idOf(retry, signedHeaders('msg_1', JSON.stringify(retry)));
    const c = idOf(first, signedHeaders('msg_2', JSON.stringify(first)));
    assert.equal(a, b);
    assert.notEqual(a, c);
  });
});
