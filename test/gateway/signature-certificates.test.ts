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
import { signSnsMessage } from '../../core/translate/signature-sns.ts';
import { certificateGateway, post, reasonOf } from './support.ts';

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
  const c = certificateGateway('orders', SPEC, HOST, CERT_PATH);

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
      c.pair.key,
    );
  // SNS posts its JSON labelled text/plain.
  const send = (msg: unknown) =>
    post(
      `${c.g.g.url}/v1/translators/orders`,
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
    assert.equal(c.g.pub.published, 2);
    assert.deepEqual(c.server.hits, [CERT_PATH]);
    assert.equal(c.g.pub.calls[0]?.messages[0]?.attributes['translator'], 'orders');
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
    assert.equal(c.g.pub.published, 0);
    assert.deepEqual(c.fetched, [`https://${HOST}${CERT_PATH}`], 'only the tampered message’s (pinned) URL');
    assert.deepEqual(
      c.g.refusals().map((r) => [r['reason'], r['credential']]),
      Array.from({ length: 3 }, () => ['bad_signature', 'signature:sns']),
    );
  });

  it('answers 503 when the certificate cannot be fetched, and fetches again on SNS’s retry', async () => {
    c.server.down = true;
    const a = await send(message());
    assert.equal(a.status, 503);
    assert.equal(c.g.refusals().at(-1)?.['reason'], 'certificate_unavailable');
    c.server.down = false;
    const b = await send(message());
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal(c.server.hits.length, 2);
  });

  it('takes SNS’s retry of a message (same MessageId and body) again, as the same event, logged as a replay', async () => {
    const m = message();
    assert.equal((await send(m)).status, 200);
    assert.equal((await send(m)).status, 200);
    const ids = c.g.pub.calls.map((call) => call.messages[0]?.attributes['event_id']);
    assert.equal(ids.length, 2);
    assert.equal(ids[0], ids[1]);
    assert.ok(c.g.logged.some((e) => e['replay'] === 'sns:a1b2c3d4-0000-4000-8000-000000000001'));
  });
});
