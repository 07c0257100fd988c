/**
 * The signature scheme offered from a sample's shape (core/samples/sender-scheme.ts): PayPal's
 * and Amazon SNS's envelopes are each recognised only whole, every part at its own form, and a
 * shape missing any one part (or holding it in another type) is offered nothing.
 */
import assert from 'node:assert/strict';
import { offeredScheme } from '../../../core/samples/sender-scheme.ts';

const paypal = {
  id: 'WH-2WR32451HC0233532-67976317FL4543714',
  event_type: 'PAYMENT.SALE.COMPLETED',
  resource_type: 'sale',
  'resource.id': '80021663DE681814L',
};
const sns = {
  Type: 'Notification',
  TopicArn: 'arn:aws:sns:eu-west-1:123456789012:orders',
  SigningCertURL: 'https://sns.eu-west-1.amazonaws.com/cert.pem',
};
const scheme = (row: Record<string, unknown>) => offeredScheme([row])?.scheme;

describe("the creator's offered signature scheme, by envelope", () => {
  it('offers paypal for the whole envelope, with a resource nested or whole, and says why', () => {
    assert.deepEqual(offeredScheme([paypal]), {
      scheme: 'paypal',
      why: 'a PayPal webhook event (PAYMENT.SALE.COMPLETED): PayPal signs it with its certificate (scheme paypal; give the Webhook ID PayPal shows for this URL)',
    });
    const { 'resource.id': _, ...flat } = paypal;
    assert.equal(scheme({ ...flat, resource: 'x' }), 'paypal');
    assert.equal(scheme(flat), undefined);
  });

  it('offers nothing when one part of PayPal’s envelope is off', () => {
    for (const over of [
      { id: 'xWH-1' },
      { id: 'WH-1 x' },
      { id: 42 },
      { event_type: 'payment.sale.completed' },
      { event_type: 'PAYMENT.SALE.completed' },
      { event_type: 'xPAYMENT.SALE' },
      { resource_type: '' },
      { resource_type: 7 },
    ])
      assert.equal(scheme({ ...paypal, ...over }), undefined, JSON.stringify(over));
  });

  it('offers sns for the whole SNS envelope, and says why', () => {
    assert.deepEqual(offeredScheme([sns]), {
      scheme: 'sns',
      why: 'an Amazon SNS message: SNS signs it with its certificate (scheme sns; list the topic in topic_arns)',
    });
    assert.equal(scheme({ ...sns, Type: 'SubscriptionConfirmation' }), 'sns');
  });

  it('offers nothing when one part of the SNS envelope is off', () => {
    for (const over of [
      { Type: 'Notifications' },
      { Type: 'ANotification' },
      { Type: 'UnsubscribeConfirmation' },
      { TopicArn: 'urn:aws:sns' },
      { TopicArn: 7 },
      { SigningCertURL: '' },
      { SigningCertURL: true },
    ])
      assert.equal(scheme({ ...sns, ...over }), undefined, JSON.stringify(over));
    assert.equal(offeredScheme([]), undefined);
  });
});
