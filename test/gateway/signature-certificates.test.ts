/**
 * Senders that sign with a published certificate (docs/senders.md, "Amazon SNS"), through the
 * translator endpoint on a loopback port: messages signed as AWS documents under a self-made key,
 * the certificate served by a loopback server that the gateway's injected fetch reaches for
 * SNS's host (the pin is checked on the URL as the message gives it). A good message is taken
 * and its certificate fetched once; a bad signature, a URL off SNS's domain (nothing fetched)
 * and a foreign topic are 401; a certificate that cannot be fetched is 503 and not remembered;
 * SNS's retry of a message is taken again and folds into the same event.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signSnsMessage } from '../../core/translate/signature-sns.ts';
import { makeSigningCertificate, type SigningCertificate } from '../support/signing-certificate.ts';
import { loggingGateway, post, reasonOf } from './support.ts';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:orders';
const HOST = 'sns.eu-west-1.amazonaws.com';
const CERT_PATH = '/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem';

const SPEC = {
  event: 'view_content',
  format: { type: 'json' },
  auth: { signature: { scheme: 'sns', topic_arns: [TOPIC] } },
  fields: [
    { target: 'content_name', source: 'Subject' },
    { target: 'content_type', value: 'product' },
  ],
};

describe('gateway: senders that sign with a published certificate (Amazon SNS)', () => {
  let pair: SigningCertificate;
  let certServer: Server;
  let certPort: number;
  let certHits: string[];
  let certDown: boolean;
  let fetchedUrls: string[];
  let g: Awaited<ReturnType<typeof loggingGateway>>;

  before(async () => {
    pair = makeSigningCertificate();
    certServer = createServer((req, res) => {
      certHits.push(req.url ?? '');
      if (certDown || req.url !== CERT_PATH) {
        res.writeHead(certDown ? 503 : 404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(pair.cert);
    });
    await new Promise<void>((resolve) => certServer.listen(0, '127.0.0.1', resolve));
    certPort = (certServer.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => certServer.close(() => resolve())));

  beforeEach(async () => {
    certHits = [];
    certDown = false;
    fetchedUrls = [];
    g = await loggingGateway({
      translators: {
        get: async (name) => (name === 'orders' ? { name, version: '1', spec: SPEC as never } : undefined),
      },
      // SNS's host is mapped to the loopback server here alone; the gateway saw the real URL.
      fetch: async (input, init) => {
        const url = new URL(String(input));
        fetchedUrls.push(url.href);
        assert.equal(url.hostname, HOST, 'only SNS’s host is ever fetched');
        return fetch(`http://127.0.0.1:${certPort}${url.pathname}`, init);
      },
    });
  });
  afterEach(() => g.g.close());

  const message = (over: Record<string, string> = {}) =>
    signSnsMessage(
      {
        Type: 'Notification',
        MessageId: 'a1b2c3d4-0000-4000-8000-000000000001',
        TopicArn: TOPIC,
        Subject: 'Gold plan',
        Message: '{"order":"A-1"}',
        Timestamp: new Date().toISOString(),
        SigningCertURL: `https://${HOST}${CERT_PATH}`,
        ...over,
      },
      pair.key,
    );
  // SNS posts its JSON labelled text/plain.
  const send = (msg: unknown) =>
    post(
      `${g.g.url}/v1/translators/orders`,
      JSON.stringify(msg),
      { 'content-type': 'text/plain; charset=UTF-8' },
      true,
    );

  it('takes a signed message, fetching its certificate once for many', async () => {
    const a = await send(message());
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const b = await send(
      message({ MessageId: 'a1b2c3d4-0000-4000-8000-000000000002', Subject: 'Silver plan' }),
    );
    assert.equal(b.status, 200);
    assert.equal(g.pub.published, 2);
    assert.deepEqual(certHits, [CERT_PATH]);
    assert.equal(g.pub.calls[0]?.messages[0]?.attributes['translator'], 'orders');
  });

  it('refuses a bad signature, a certificate URL off SNS’s domain (fetching nothing) and a foreign topic with 401', async () => {
    const tampered = { ...message(), Subject: 'Free plan' };
    const forged = message({ SigningCertURL: `https://${HOST}.attacker.example${CERT_PATH}` });
    const foreign = message({ TopicArn: 'arn:aws:sns:eu-west-1:999999999999:orders' });
    const answers = [await send(tampered), await send(forged), await send(foreign)];
    assert.deepEqual(
      answers.map((a) => [a.status, reasonOf(a)]),
      Array.from({ length: 3 }, () => [401, 'INVALID_CREDENTIALS']),
    );
    assert.match(answers[1]?.body.error?.message ?? '', /attacker\.example is not Amazon SNS's/);
    assert.match(answers[2]?.body.error?.message ?? '', /not among the translator’s topic_arns/);
    assert.equal(g.pub.published, 0);
    assert.deepEqual(
      fetchedUrls,
      [`https://${HOST}${CERT_PATH}`],
      'only the tampered message’s (pinned) URL',
    );
    assert.deepEqual(
      g.refusals().map((r) => [r['reason'], r['credential']]),
      Array.from({ length: 3 }, () => ['bad_signature', 'signature:sns']),
    );
  });

  it('answers 503 when the certificate cannot be fetched, and fetches again on SNS’s retry', async () => {
    certDown = true;
    const a = await send(message());
    assert.equal(a.status, 503);
    assert.equal(g.refusals().at(-1)?.['reason'], 'certificate_unavailable');
    certDown = false;
    const b = await send(message());
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal(certHits.length, 2);
  });

  it('takes SNS’s retry of a message (same MessageId and body) again, as the same event, logged as a replay', async () => {
    const m = message();
    assert.equal((await send(m)).status, 200);
    assert.equal((await send(m)).status, 200);
    const ids = g.pub.calls.map((c) => c.messages[0]?.attributes['event_id']);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1]);
    assert.ok(g.logged.some((e) => e['replay'] === 'sns:a1b2c3d4-0000-4000-8000-000000000001'));
  });
});
