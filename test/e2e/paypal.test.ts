/**
 * PayPal's certificate-signed webhooks (docs/senders.md, "PayPal") through the running local
 * environment (`eventbus start`): a real PayPal delivery body (test/fixtures/sources/SOURCES.md)
 * signed as PayPal signs it, under a certificate made here (PayPal's key being PayPal's), whose
 * PAYPAL-CERT-URL names PayPal's sandbox host. The gateway pins that URL to PayPal's hosts as
 * sent, then fetches it through its egress gate from the loopback server standing in for PayPal:
 * the environment is given that server's origin as an endpoint (EVENTBUS_CERTIFICATE_ORIGIN) and
 * on the gate's allow-list, as a test names any stand-in; no code asks whether it runs locally.
 * The delivery and PayPal's retry of it are one stored purchase, delivered once to the webhook
 * stand-in; a tampered body and a certificate URL off PayPal's hosts are 401s in Google's error
 * form, nothing stored, nothing more fetched.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { signPaypalDelivery } from '../../core/translate/signature-paypal.ts';
import {
  eventbusIn,
  localBigQuery,
  REPO,
  type StartedLocal,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import {
  type CertificateServer,
  makeSigningCertificate,
  type SigningCertificate,
  serveCertificate,
} from '../support/signing-certificate.ts';
import { until } from '../support/until.ts';

/** The delivery of PayPal's PHP SDK sample: its webhook id, transmission id and certificate path. */
const WEBHOOK_ID = '9XL90610J3647323C';
const TRANSMISSION_ID = 'd938e770-8046-11e6-8103-6b62a8a99ac4';
const CERT_PATH = '/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77';
const CERT_URL = `https://api.sandbox.paypal.com${CERT_PATH}`;
const BODY = readFileSync(join(REPO, 'test/fixtures/sources/paypal/sale-completed.json'), 'utf8');
const EVENT_ID = 'WH-9UG43882HX7271132-6E0871324L7949614';

const TRANSLATOR = `
kind: Translator
name: paypal-sales
description: PayPal's PAYMENT.SALE.COMPLETED deliveries, checked under PayPal's certificate.
spec:
  event: purchase
  format: { type: json }
  auth:
    signature: { scheme: paypal, webhook_id: ${WEBHOOK_ID} }
  fields:
    - { target: event_id, source: id }
    - { target: transaction_id, source: resource.id }
    - { target: value, source: resource.amount.total, transforms: [number] }
    - { target: currency, source: resource.amount.currency }
    - { target: consent.ads, value: granted }
    - { target: consent.ad_user_data, value: granted }
    - { target: consent.analytics, value: granted }
`;

interface Answer {
  readonly status: number;
  readonly body: {
    messageIds?: string[];
    error?: {
      code: number;
      status: string;
      message: string;
      details?: { '@type': string; reason?: string }[];
    };
  };
}

describe('end to end: a PayPal-signed webhook, its certificate from a stand-in through the egress gate', function () {
  this.timeout(240_000);
  let local: StartedLocal | undefined;
  let bigquery: BigQuery;
  let pair: SigningCertificate;
  let certs: CertificateServer | undefined;

  before(async () => {
    pair = makeSigningCertificate();
    certs = await serveCertificate(pair.cert, CERT_PATH);
    const origin = `http://127.0.0.1:${certs.port}`;
    local = await startLocalCli({
      prefix: 'eventbus-paypal-',
      env: { EVENTBUS_EGRESS_ALLOW: origin, EVENTBUS_CERTIFICATE_ORIGIN: origin },
    });
    bigquery = await localBigQuery(local.ports);
    const file = join(local.dataDir, 'paypal-sales.yaml');
    writeFileSync(file, TRANSLATOR);
    await eventbusIn(local.dataDir)('apply', '-f', file);
  });
  after(async () => {
    await stopLocal(local?.child, local?.dataDir ?? '');
    await certs?.close();
  });

  const env = (): StartedLocal => {
    assert.ok(local, 'the environment started');
    return local;
  };
  const query = async <T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> =>
    (await bigquery.query({ query: sql, params }))[0] as T[];
  /** Rows in `events` for each id, in order (0 for one with none). */
  const stored = async (...ids: string[]): Promise<number[]> => {
    const rows = await query<{ event_id: string; n: number }>(
      'SELECT event_id, COUNT(*) AS n FROM events.events WHERE event_id IN UNNEST(@ids) GROUP BY event_id',
      { ids },
    );
    return ids.map((id) => Number(rows.find((r) => r.event_id === id)?.n ?? 0));
  };
  const deliveredToWebhook = async (id: string) =>
    Number(
      (
        await query<{ n: number }>(
          `SELECT COUNT(*) AS n FROM events.deliveries
           WHERE event_id = @id AND destination = 'webhook' AND status = 'delivered' AND NOT replay`,
          { id },
        )
      )[0]?.n,
    );
  const reasonOf = (a: Answer) =>
    a.body.error?.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;

  /** POSTs `body` as PayPal does, its headers signed over `signed` (default: the body itself). */
  const deliver = async (body: string, over: { signed?: string; certUrl?: string } = {}): Promise<Answer> => {
    const res = await fetch(`http://127.0.0.1:${env().ports['gateway']}/v1/translators/paypal-sales`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'PayPal/AUHD-214.0-52392296',
        ...signPaypalDelivery(
          over.signed ?? body,
          {
            webhookId: WEBHOOK_ID,
            id: TRANSMISSION_ID,
            time: new Date().toISOString(),
            certUrl: over.certUrl ?? CERT_URL,
          },
          pair.key,
        ),
      },
      body,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : {} };
  };

  it('takes the delivery, its certificate fetched once from the stand-in, and PayPal’s retry as the same purchase', async () => {
    // 404 until the gateway reads the new translator; a registry read that failed on a loaded
    // machine (503 REGISTRY_UNAVAILABLE) is sent again, as PayPal retries a 503.
    const first = await until(
      'the translator live on the gateway',
      async () => {
        const a = await deliver(BODY);
        return a.status === 404 || reasonOf(a) === 'REGISTRY_UNAVAILABLE' ? undefined : a;
      },
      60_000,
    );
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.messageIds?.length, 1);
    // PayPal retries a delivery whose answer it missed: same body, same transmission id.
    const retry = await deliver(BODY);
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.deepEqual(certs?.hits, [CERT_PATH], 'one fetch of the pinned path, kept for the retry');

    const row = await until(
      'the stored purchase',
      async () =>
        (
          await query<{ value: number; currency: string; transaction_id: string }>(
            'SELECT value, currency, transaction_id FROM events.purchase WHERE event_id = @id',
            { id: EVENT_ID },
          )
        )[0],
      90_000,
    );
    assert.deepEqual({ ...row }, { value: 21, currency: 'USD', transaction_id: '80F85758S3080410K' });
    await until(
      'the webhook stand-in’s delivery',
      async () => ((await deliveredToWebhook(EVENT_ID)) > 0 ? true : undefined),
      90_000,
    );
    const received = (
      (await (await fetch(`http://127.0.0.1:${env().ports['receiver']}/received.json`)).json()) as {
        received: { destination: string; eventId?: string }[];
      }
    ).received.filter((r) => r.destination === 'webhook' && r.eventId === EVENT_ID);
    assert.ok(received.length >= 1, 'at the webhook stand-in');
    // The retry went through the bus too: give it the time the first copy took to settle, then
    // it must have made no second row and no second delivery.
    await new Promise((r) => setTimeout(r, 8000));
    assert.deepEqual(await stored(EVENT_ID), [1], 'one row for the delivery and its retry');
    assert.equal(await deliveredToWebhook(EVENT_ID), 1, 'one delivery to the webhook stand-in');
  });

  it('refuses a tampered body and a certificate URL off PayPal’s hosts with 401 in Google’s form, storing nothing', async () => {
    const hitsBefore = certs?.hits.length;
    // The amount raised after signing; each body names an event id of its own to look for.
    const tamperedId = `${EVENT_ID}-TAMPERED`;
    const tamperedBody = BODY.replace(EVENT_ID, tamperedId);
    const tampered = await deliver(tamperedBody.replace('"total":"21.00"', '"total":"2100.00"'), {
      signed: tamperedBody,
    });
    const forgedId = `${EVENT_ID}-FORGED`;
    const forged = await deliver(BODY.replace(EVENT_ID, forgedId), {
      certUrl: `https://api.sandbox.paypal.com.attacker.example${CERT_PATH}`,
    });
    for (const [what, a] of [
      ['tampered', tampered],
      ['forged', forged],
    ] as const) {
      assert.equal(a.status, 401, `${what}: ${JSON.stringify(a.body)}`);
      assert.equal(a.body.error?.code, 401, what);
      assert.equal(a.body.error?.status, 'UNAUTHENTICATED', what);
      assert.equal(reasonOf(a), 'INVALID_CREDENTIALS', what);
    }
    assert.match(tampered.body.error?.message ?? '', /PAYPAL-TRANSMISSION-SIG does not verify/);
    assert.match(forged.body.error?.message ?? '', /attacker\.example is not PayPal's/);
    // The tampered delivery's URL is PayPal's and already kept; the forged one is never fetched.
    assert.equal(certs?.hits.length, hitsBefore, 'nothing more fetched');
    await new Promise((r) => setTimeout(r, 8000));
    assert.deepEqual(await stored(tamperedId, forgedId), [0, 0], 'nothing stored');
  });
});
