/**
 * core/samples/sender-scheme.ts: the creator offers PayPal's certificate scheme for PayPal's
 * webhook envelope (the project's PayPal fixtures, written from PayPal's webhook event
 * reference: test/fixtures/sources/creator/SOURCES.md) and SNS's for an SNS message, and nothing
 * for shapes that could be anyone's (Intercom's, Lemon Squeezy's, a Twilio form, a bare object
 * with an `event_type`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseSample } from '../../../core/samples/index.ts';
import { offeredScheme } from '../../../core/samples/sender-scheme.ts';

const fixture = (file: string) =>
  parseSample(readFileSync(new URL(`../../fixtures/sources/creator/${file}`, import.meta.url), 'utf8'));

describe('creator: the signature scheme a sample’s shape names', () => {
  it('offers paypal for PayPal’s webhook events, naming the event type', () => {
    for (const file of ['paypal-capture-completed.synthetic.json', 'paypal-sale-completed.synthetic.json']) {
      const offer = offeredScheme(fixture(file).rows);
      assert.equal(offer?.scheme, 'paypal', file);
      assert.match(offer?.why ?? '', /PAYMENT\.(CAPTURE|SALE)\.COMPLETED/);
    }
  });

  it('offers sns for an Amazon SNS message', () => {
    const sample = parseSample(
      JSON.stringify({
        Type: 'Notification',
        MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
        TopicArn: 'arn:aws:sns:us-east-1:123456789012:orders',
        Message: '{}',
        SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0.pem',
      }),
    );
    assert.equal(offeredScheme(sample.rows)?.scheme, 'sns');
  });

  it('offers nothing for other vendors’ shapes or a look-alike', () => {
    for (const file of [
      'intercom-user-created.synthetic.json',
      'lemonsqueezy-order-created.json',
      'twilio-sms-received.synthetic.form',
    ])
      assert.equal(offeredScheme(fixture(file).rows), undefined, file);
    const lookAlike = parseSample(
      '{"id":"evt_1","event_type":"PAYMENT.SALE.COMPLETED","resource_type":"sale","resource":{"id":"1"}}',
    );
    assert.equal(offeredScheme(lookAlike.rows), undefined);
    assert.equal(offeredScheme([]), undefined);
  });
});
