/**
 * Senders that sign their body (docs/senders.md), through the translator endpoint on a loopback
 * port: for each vendor's scheme a body signed by our signer is accepted and a tampered, missing
 * or stale one refused with 401 in Google's envelope and one refusal record (reason, credential,
 * translator, size; never the secret); bodies signed by the vendors' own SDK helpers are
 * accepted (Stripe, GitHub, HubSpot), and our signatures pass the vendors' own verifiers (Stripe,
 * GitHub, HubSpot, Shopify, Paddle; WooCommerce, Typeform and Calendly publish no Node helper).
 * The generic scheme's forms too (HMAC-MD5, a signed timestamp, Twilio's URL and sorted form).
 * Two secrets verify during a rotation, and the signature is checked before the body is parsed.
 * Replays: a delivery sent again inside the window folds into the same event (and is logged),
 * a stale one is refused, and an unsigned Idempotency-Key never changes a signed delivery's id.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { Signature as HubSpotSignature } from '@hubspot/api-client';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { Paddle } from '@paddle/paddle-node-sdk';
import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, shopifyApi } from '@shopify/shopify-api';
import Stripe from 'stripe';
import { signRequest } from '../../core/translate/signatures.ts';
import type { TranslatorSignature } from '../../schemas/translator.ts';
import {
  FakePublisher,
  fixedTranslators,
  post,
  reasonOf,
  startTestGateway,
  type TestGateway,
} from './support.ts';

const SECRETS: Record<string, string> = {
  OLD_SECRET: 'whsec_old_secret_value_0123456789',
  NEW_SECRET: 'whsec_new_secret_value_9876543210',
};

const SCHEMES: TranslatorSignature[] = [
  { scheme: 'stripe', secrets: ['NEW_SECRET'] },
  { scheme: 'shopify', secrets: ['NEW_SECRET'] },
  { scheme: 'github', secrets: ['NEW_SECRET'] },
  { scheme: 'woocommerce', secrets: ['NEW_SECRET'] },
  { scheme: 'hubspot', secrets: ['NEW_SECRET'] },
  { scheme: 'paddle', secrets: ['NEW_SECRET'] },
  { scheme: 'typeform', secrets: ['NEW_SECRET'] },
  { scheme: 'calendly', secrets: ['NEW_SECRET'] },
  {
    scheme: 'hmac',
    secrets: ['NEW_SECRET'],
    header: 'X-Mailer-Signature',
    algorithm: 'sha1',
    encoding: 'base64',
    prefix: 'v1=',
  },
];
/** The generic scheme's other forms, each under a translator of its own. */
const GENERIC: Record<string, TranslatorSignature> = {
  'hmac-md5': { scheme: 'hmac', secrets: ['NEW_SECRET'], header: 'X-Md5-Signature', algorithm: 'md5' },
  'hmac-timestamped': {
    scheme: 'hmac',
    secrets: ['NEW_SECRET'],
    header: 'X-Request-Signature',
    encoding: 'base64',
    signed: 'method_url_body_timestamp',
    timestamp_header: 'X-Request-Timestamp',
  },
};
const NAMED: [string, TranslatorSignature][] = [
  ...SCHEMES.map((s): [string, TranslatorSignature] => [s.scheme, s]),
  ...Object.entries(GENERIC),
];
/** Twilio's form (test/unit/translate/signatures.test.ts checks it against Twilio's own samples). */
const TWILIO: TranslatorSignature = {
  scheme: 'hmac',
  secrets: ['NEW_SECRET'],
  header: 'X-Twilio-Signature',
  algorithm: 'sha1',
  encoding: 'base64',
  signed: 'url_form',
};
const TIMESTAMPED = new Set(['stripe', 'hubspot', 'paddle', 'calendly', 'hmac-timestamped']);

const spec = (signature: TranslatorSignature) => ({
  event: 'view_content',
  format: { type: 'json' },
  auth: { signature },
  fields: [
    { target: 'content_name', source: 'data.object.description' },
    { target: 'content_type', value: 'product' },
  ],
});

const BODY = JSON.stringify({ id: 'evt_1', data: { object: { description: 'Gold plan' } } });

describe('gateway: senders that sign their body', () => {
  let g: TestGateway;
  let pub: FakePublisher;
  let logged: Record<string, unknown>[];
  let clock: number;
  const secretReads: string[] = [];
  beforeEach(async () => {
    pub = new FakePublisher();
    logged = [];
    clock = Date.now();
    const specs: Record<string, unknown> = {
      rotating: spec({ scheme: 'github', secrets: ['OLD_SECRET', 'NEW_SECRET'] }),
      unset: spec({ scheme: 'github', secrets: ['NOT_SET'] }),
    };
    for (const [name, s] of NAMED) specs[name] = spec(s);
    specs['twilio'] = {
      ...spec(TWILIO),
      format: { type: 'form' },
      fields: [
        { target: 'content_name', source: 'Body' },
        { target: 'content_type', value: 'product' },
      ],
    };
    g = await startTestGateway({
      publisher: pub,
      clock: () => clock,
      log: (e) => logged.push(e),
      translators: fixedTranslators(specs),
      secrets: {
        get: async (name) => {
          secretReads.push(name);
          return SECRETS[name];
        },
      },
    });
  });
  afterEach(() => g.close());

  const url = (name: string) => `${g.url}/v1/translators/${name}`;
  const signed = (
    sig: TranslatorSignature,
    body: string,
    at = Math.floor(clock / 1000),
    secret = SECRETS.NEW_SECRET as string,
    name: string = sig.scheme,
  ) => signRequest(sig, secret, { method: 'POST', url: url(name), body }, at);
  const refusals = () =>
    logged.flatMap((e) => (e['refusal'] ? [e['refusal'] as Record<string, unknown>] : []));

  for (const [name, sig] of NAMED) {
    it(`${name}: accepts its signature, refuses a tampered or missing one${TIMESTAMPED.has(name) ? ' or a stale one' : ''}, and counts each`, async () => {
      const at = Math.floor(clock / 1000);
      const ok = await post(url(name), BODY, signed(sig, BODY, at, undefined, name), true);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal(pub.published, 1);

      const tampered = await post(
        url(name),
        BODY.replace('Gold', 'Free'),
        signed(sig, BODY, at, undefined, name),
        true,
      );
      assert.equal(tampered.status, 401);
      assert.equal(tampered.body.error?.status, 'UNAUTHENTICATED');
      assert.equal(reasonOf(tampered), 'INVALID_CREDENTIALS');
      const wrongSecret = await post(url(name), BODY, signed(sig, BODY, at, 'another', name), true);
      assert.equal(wrongSecret.status, 401);
      const missing = await post(url(name), BODY, {}, true);
      assert.equal(missing.status, 401);
      // A Bearer token is not a signature: a signing translator takes signed bodies only.
      assert.equal((await post(url(name), BODY, { authorization: `Bearer ${g.token}` }, true)).status, 401);
      const reasons = ['bad_signature', 'bad_signature', 'missing_signature', 'missing_signature'];
      if (TIMESTAMPED.has(name)) {
        const stale = await post(url(name), BODY, signed(sig, BODY, at - 301, undefined, name), true);
        assert.equal(stale.status, 401);
        assert.match(stale.body.error?.message ?? '', /old/);
        reasons.push('stale_signature');
      }
      assert.equal(pub.published, 1);
      const records = refusals();
      assert.deepEqual(
        records.map((r) => r['reason']),
        reasons,
      );
      for (const r of records) {
        assert.equal(r['translator'], name);
        assert.equal(r['credential'], `signature:${sig.scheme}`);
        assert.equal(r['size'], Buffer.byteLength(BODY));
      }
      assert.deepEqual(
        records.map((r) => r['count']),
        reasons.map((x, i) => reasons.slice(0, i + 1).filter((y) => y === x).length),
      );
      const text = JSON.stringify(logged);
      assert.ok(
        !text.includes(SECRETS.NEW_SECRET as string) && !text.includes('Gold plan'),
        'no secret or body in the logs',
      );
    });
  }

  it('a vendor’s retry of a delivery (same body, a new signature) gets the same event id', async () => {
    const sig: TranslatorSignature = { scheme: 'stripe', secrets: ['NEW_SECRET'] };
    const now = Math.floor(clock / 1000);
    assert.equal((await post(url('stripe'), BODY, signed(sig, BODY, now - 60), true)).status, 200);
    assert.equal((await post(url('stripe'), BODY, signed(sig, BODY, now), true)).status, 200);
    const ids = pub.calls.map((c) => c.messages[0]?.attributes['event_id']);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1]);
  });

  it('url_form: takes a form post signed over the URL called and its sorted parameters; another URL or parameter is 401', async () => {
    const form = 'To=%2B14158141819&From=%2B14159354345&Body=Gold+plan&SmsSid=SM2003';
    const headers = {
      ...signRequest(
        TWILIO,
        SECRETS.NEW_SECRET as string,
        { method: 'POST', url: url('twilio'), body: form },
        0,
      ),
      'content-type': 'application/x-www-form-urlencoded',
    };
    const ok = await post(url('twilio'), form, headers, true);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(pub.calls[0]?.messages[0]?.attributes['event_name'], 'view_content');
    assert.equal((await post(`${url('twilio')}?x=1`, form, headers, true)).status, 401);
    assert.equal((await post(url('twilio'), form.replace('Gold', 'Free'), headers, true)).status, 401);
    assert.equal(pub.published, 1);
  });

  describe('replays (docs/senders.md, "Replays")', () => {
    const github: TranslatorSignature = { scheme: 'github', secrets: ['NEW_SECRET'] };
    const ids = () => pub.calls.map((c) => c.messages[0]?.attributes['event_id']);

    it('a delivery sent again inside the window is taken as the same event, and logged as a replay', async () => {
      const headers = {
        ...signed(github, BODY),
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      };
      assert.equal((await post(url('github'), BODY, headers, true)).status, 200);
      assert.equal((await post(url('github'), BODY, headers, true)).status, 200);
      assert.equal(ids().length, 2);
      assert.equal(ids()[0], ids()[1]);
      const replays = logged.filter((e) => e['replay'] !== undefined);
      assert.deepEqual(
        replays.map((e) => e['replay']),
        ['x-github-delivery:72d3162e-cc78-11e3-81ab-4c9367dc0958'],
      );
      // Outside the window it is a delivery like any other (a timestamp-less scheme cannot tell).
      clock += 301_000;
      assert.equal((await post(url('github'), BODY, headers, true)).status, 200);
      assert.equal(logged.filter((e) => e['replay'] !== undefined).length, 1);
      assert.equal(ids()[2], ids()[0]);
    });

    it('a replay of a timestamped delivery after the tolerance is refused stale_signature', async () => {
      const sig: TranslatorSignature = { scheme: 'stripe', secrets: ['NEW_SECRET'] };
      const headers = signed(sig, BODY);
      assert.equal((await post(url('stripe'), BODY, headers, true)).status, 200);
      clock += 301_000;
      const late = await post(url('stripe'), BODY, headers, true);
      assert.equal(late.status, 401);
      assert.equal(refusals().at(-1)?.['reason'], 'stale_signature');
      assert.equal(pub.published, 1);
    });

    it('the signed body decides a signed delivery’s id, never the unsigned Idempotency-Key', async () => {
      const headers = signed(github, BODY);
      for (const key of ['retry-1', 'retry-2', undefined])
        assert.equal(
          (await post(url('github'), BODY, { ...headers, ...(key ? { 'idempotency-key': key } : {}) }, true))
            .status,
          200,
        );
      assert.equal(new Set(ids()).size, 1, 'one event whatever the key');
      // A key reused with another signed body is no refusal either: the key is not read.
      const other = BODY.replace('Gold', 'Silver');
      const again = await post(
        url('github'),
        other,
        { ...signed(github, other), 'idempotency-key': 'retry-1' },
        true,
      );
      assert.equal(again.status, 200);
      assert.equal(new Set(ids()).size, 2);
    });
  });

  it('accepts either secret during a rotation', async () => {
    const sig: TranslatorSignature = { scheme: 'github', secrets: ['OLD_SECRET', 'NEW_SECRET'] };
    for (const secret of [SECRETS.OLD_SECRET, SECRETS.NEW_SECRET] as string[]) {
      const headers = signRequest(sig, secret, { method: 'POST', url: '', body: BODY }, 0);
      assert.equal((await post(url('rotating'), BODY, headers, true)).status, 200);
    }
    const other = signRequest(sig, 'retired', { method: 'POST', url: '', body: BODY }, 0);
    assert.equal((await post(url('rotating'), BODY, other, true)).status, 401);
  });

  it('checks the signature before reading the body: an unsigned malformed body is 401, not 400', async () => {
    const a = await post(
      url('github'),
      '{not json',
      { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      true,
    );
    assert.equal(a.status, 401);
  });

  it('checks a gzip body’s signature on the bytes as sent, before inflating: a bomb unsigned is 401, not 413', async () => {
    const zipped = gzipSync(BODY);
    const sig: TranslatorSignature = { scheme: 'github', secrets: ['NEW_SECRET'] };
    const headers = signRequest(
      sig,
      SECRETS.NEW_SECRET as string,
      { method: 'POST', url: '', body: zipped },
      0,
    );
    const ok = await post(url('github'), zipped, { ...headers, 'content-encoding': 'gzip' }, true);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const member = gzipSync(Buffer.alloc(10_000_000));
    const bomb = Buffer.concat(Array.from({ length: 20 }, () => member));
    const a = await post(
      url('github'),
      bomb,
      { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}`, 'content-encoding': 'gzip' },
      true,
    );
    assert.equal(a.status, 401);
  });

  it('a signing secret with no value answers 503 (the vendor retries) and logs which secret', async () => {
    const headers = signRequest(
      { scheme: 'github', secrets: ['NOT_SET'] },
      'x',
      { method: 'POST', url: '', body: BODY },
      0,
    );
    const a = await post(url('unset'), BODY, headers, true);
    assert.equal(a.status, 503);
    assert.ok(logged.some((e) => e['severity'] === 'ERROR' && JSON.stringify(e).includes('NOT_SET')));
    assert.equal(refusals().at(-1)?.['reason'], 'no_secret');
  });

  describe('the vendors’ own SDKs', () => {
    const stripe = new Stripe('sk_test_placeholder');

    it('Stripe: generateTestHeaderString is accepted; ours passes constructEvent', async () => {
      const header = stripe.webhooks.generateTestHeaderString({
        payload: BODY,
        secret: SECRETS.NEW_SECRET as string,
        timestamp: Math.floor(clock / 1000),
      });
      assert.equal((await post(url('stripe'), BODY, { 'stripe-signature': header }, true)).status, 200);
      const ours = signed({ scheme: 'stripe', secrets: ['NEW_SECRET'] }, BODY, Math.floor(Date.now() / 1000));
      const event = stripe.webhooks.constructEvent(
        BODY,
        ours['stripe-signature'] as string,
        SECRETS.NEW_SECRET as string,
      );
      assert.equal(event.id, 'evt_1');
      assert.throws(() =>
        stripe.webhooks.constructEvent(BODY, ours['stripe-signature'] as string, 'whsec_other'),
      );
    });

    it('GitHub: @octokit/webhooks-methods sign is accepted; ours passes its verify', async () => {
      const header = await octokitSign(SECRETS.NEW_SECRET as string, BODY);
      assert.equal((await post(url('github'), BODY, { 'x-hub-signature-256': header }, true)).status, 200);
      const ours = signed({ scheme: 'github', secrets: ['NEW_SECRET'] }, BODY);
      assert.equal(
        await octokitVerify(SECRETS.NEW_SECRET as string, BODY, ours['x-hub-signature-256'] as string),
        true,
      );
      assert.equal(await octokitVerify('other', BODY, ours['x-hub-signature-256'] as string), false);
    });

    it('HubSpot: a v3 signature by the SDK’s getSignature is accepted; ours passes its isValid', async () => {
      const ms = Date.now();
      const signature = HubSpotSignature.getSignature('POST', 'v3', {
        signature: '', // its type asks for one; getSignature does not read it
        clientSecret: SECRETS.NEW_SECRET as string,
        url: url('hubspot'),
        requestBody: BODY,
        timestamp: ms,
      });
      const a = await post(
        url('hubspot'),
        BODY,
        { 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': String(ms) },
        true,
      );
      assert.equal(a.status, 200, JSON.stringify(a.body));
      const now = Math.floor(Date.now() / 1000);
      const ours = signed({ scheme: 'hubspot', secrets: ['NEW_SECRET'] }, BODY, now);
      const valid = (secret: string) =>
        HubSpotSignature.isValid({
          signatureVersion: 'v3',
          signature: ours['x-hubspot-signature-v3'] as string,
          clientSecret: secret,
          requestBody: BODY,
          url: url('hubspot'),
          method: 'POST',
          timestamp: now * 1000,
        });
      assert.equal(valid(SECRETS.NEW_SECRET as string), true);
      assert.equal(valid('other'), false);
    });

    it('Shopify: ours passes @shopify/shopify-api’s webhooks.validate (it has no signer)', async () => {
      const shopify = shopifyApi({
        apiKey: 'app-key',
        apiSecretKey: SECRETS.NEW_SECRET as string,
        scopes: [],
        hostName: 'gateway.example',
        apiVersion: ApiVersion.October25,
        isEmbeddedApp: false,
        logger: { level: LogSeverity.Error },
      });
      const ours = signed({ scheme: 'shopify', secrets: ['NEW_SECRET'] }, BODY);
      // The headers Shopify sends with every webhook, which its validator also asks for.
      const headers = {
        ...ours,
        'x-shopify-topic': 'orders/create',
        'x-shopify-shop-domain': 'shop.myshopify.com',
        'x-shopify-api-version': '2025-10',
        'x-shopify-webhook-id': 'b54557e4',
      };
      const validate = (rawBody: string) =>
        shopify.webhooks.validate({
          rawBody,
          // The node adapter reads only these of an IncomingMessage.
          rawRequest: { headers, method: 'POST', url: '/v1/translators/shopify' } as never,
          rawResponse: {} as never,
        });
      assert.equal((await validate(BODY)).valid, true);
      assert.equal((await validate(`${BODY} `)).valid, false);
    });

    it('Paddle: ours passes the SDK’s isSignatureValid (it has no signer)', async () => {
      const paddle = new Paddle('pdl_sdbx_apikey_placeholder');
      const ours = signed({ scheme: 'paddle', secrets: ['NEW_SECRET'] }, BODY, Math.floor(Date.now() / 1000));
      const header = ours['paddle-signature'] as string;
      assert.equal(await paddle.webhooks.isSignatureValid(BODY, SECRETS.NEW_SECRET as string, header), true);
      assert.equal(await paddle.webhooks.isSignatureValid(BODY, 'other', header), false);
    });
  });
});
