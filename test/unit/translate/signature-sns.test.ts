/**
 * core/translate/signature-sns.ts: Amazon SNS messages built and signed as AWS documents
 * ("Verifying the signatures of Amazon SNS messages", test/fixtures/signatures/SOURCES.md) under a
 * self-made key and certificate: versions 1 and 2 verify; another key, a changed field, a
 * certificate URL off SNS's domain, a foreign topic, an expired certificate and (with a
 * tolerance) a stale Timestamp are refused with their reasons; the delivery is the MessageId.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import type { SignatureCheck } from '../../../core/translate/signature-check.ts';
import {
  type CertificateSource,
  signSnsMessage,
  snsStringToSign,
  unpinnedCertificateUrl,
  verifySns,
} from '../../../core/translate/signature-sns.ts';
import type { TranslatorSignature } from '../../../schemas/translator-signature.ts';
import { type SigningCertificate, sharedSigningCertificate } from '../../support/signing-certificate.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:orders';
const CERT_URL = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem';
const SIG: TranslatorSignature = { scheme: 'sns', topic_arns: [TOPIC] };

const notification = (over: Record<string, string> = {}) => ({
  Type: 'Notification',
  MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
  TopicArn: TOPIC,
  Subject: 'order',
  Message: '{"order_id":"A-1","total":"12.50","currency":"EUR"}',
  Timestamp: new Date().toISOString(),
  SigningCertURL: CERT_URL,
  ...over,
});

describe('signatures: Amazon SNS (sns)', () => {
  let pair: SigningCertificate;
  let other: SigningCertificate;
  const fetched: string[] = [];
  let source: CertificateSource;
  before(() => {
    pair = sharedSigningCertificate(0);
    other = sharedSigningCertificate(1);
    source = (url) => {
      fetched.push(url);
      return { ok: true, certificate: new X509Certificate(pair.cert) };
    };
  });
  const body = (msg: unknown) => Buffer.from(JSON.stringify(msg));
  const run = async (msg: unknown, sig = SIG, now = Date.now()) =>
    (await verifySns(sig, body(msg), now, source)) as SignatureCheck;
  const reason = (c: SignatureCheck) => (c.ok ? 'ok' : `${c.reason}: ${c.detail}`);

  it('builds the string to sign as AWS lists it: Subject only when present, confirmations with their token', () => {
    const n = notification();
    assert.equal(
      snsStringToSign(n),
      `Message\n${n.Message}\nMessageId\n${n.MessageId}\nSubject\norder\nTimestamp\n${n.Timestamp}\nTopicArn\n${TOPIC}\nType\nNotification\n`,
    );
    const { Subject: _, ...noSubject } = n;
    assert.ok(!snsStringToSign(noSubject)?.includes('Subject'));
    const confirm = {
      Type: 'SubscriptionConfirmation',
      MessageId: 'm',
      Token: 't0k',
      TopicArn: TOPIC,
      Message: 'confirm',
      SubscribeURL: 'https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription',
      Timestamp: 'x',
    };
    assert.match(snsStringToSign(confirm) ?? '', /SubscribeURL\n.*\nTimestamp\nx\nToken\nt0k\nTopicArn/);
    assert.equal(snsStringToSign({ ...confirm, Token: undefined }), undefined);
  });

  for (const version of ['1', '2'] as const)
    it(`verifies SignatureVersion ${version}; refuses a changed field and another key`, async () => {
      const signed = signSnsMessage(notification(), pair.key, version);
      const ok = await run(signed);
      assert.deepEqual(ok, { ok: true, delivery: 'sns:22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324' });
      assert.match(
        reason(await run({ ...signed, Message: '{"total":"0"}' })),
        /^bad_signature: Signature does not verify/,
      );
      assert.match(reason(await run(signSnsMessage(notification(), other.key, version))), /^bad_signature/);
    });

  it('pins the certificate URL to SNS’s domain before fetching anything', async () => {
    for (const url of [
      'https://sns.us-east-1.amazonaws.com.evil.example/cert.pem',
      'https://evil.example/sns.us-east-1.amazonaws.com/cert.pem',
      'http://sns.us-east-1.amazonaws.com/cert.pem',
      'https://sns.us-east-1.amazonaws.com:8443/cert.pem',
      'https://user@sns.us-east-1.amazonaws.com/cert.pem',
      'https://sns.us-east-1.amazonaws.com/cert.txt',
    ])
      assert.ok(unpinnedCertificateUrl(url), url);
    assert.equal(unpinnedCertificateUrl('https://sns.cn-north-1.amazonaws.com.cn/x.pem'), undefined);
    fetched.length = 0;
    const signed = signSnsMessage(
      notification({ SigningCertURL: 'https://attacker.example/sns.pem' }),
      pair.key,
    );
    assert.match(
      reason(await run(signed)),
      /^bad_signature: SigningCertURL's host attacker.example is not Amazon SNS's/,
    );
    assert.deepEqual(fetched, []);
  });

  it('takes the translator’s topics only', async () => {
    const signed = signSnsMessage(
      notification({ TopicArn: 'arn:aws:sns:us-east-1:999999999999:mine' }),
      pair.key,
    );
    assert.match(
      reason(await run(signed)),
      /^bad_signature: TopicArn .* is not among the translator’s topic_arns/,
    );
  });

  it('refuses under an expired certificate, and a stale Timestamp where a tolerance is set (not otherwise: SNS retries keep it)', async () => {
    const signed = signSnsMessage(notification(), pair.key);
    assert.match(
      reason(await run(signed, SIG, Date.now() + 5 * 86_400_000)),
      /^bad_signature: the SNS signing certificate is not valid now/,
    );
    const old = signSnsMessage(
      notification({ Timestamp: new Date(Date.now() - 3_600_000).toISOString() }),
      pair.key,
    );
    assert.equal(reason(await run(old)), 'ok');
    assert.match(reason(await run(old, { ...SIG, tolerance_seconds: 300 })), /^stale_signature/);
  });

  it('refuses what is not a signed SNS message, and answers certificate_unavailable when the certificate cannot be had', async () => {
    assert.match(reason(await run({ hello: 1 })), /^missing_signature/);
    assert.match(
      reason(await run({ ...notification(), Signature: 'x', SignatureVersion: '3' })),
      /^malformed_signature/,
    );
    const signed = signSnsMessage(notification(), pair.key);
    const down = await verifySns(SIG, body(signed), Date.now(), () => ({
      ok: false,
      detail: 'answered 500',
    }));
    assert.deepEqual(down, { ok: false, reason: 'certificate_unavailable', detail: 'answered 500' });
  });
});
