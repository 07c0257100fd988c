/**
 * The signature scheme a sample's shape names (docs/studio.md, step 4): a vendor whose deliveries
 * are recognisable by their own envelope, and which signs them under a scheme the gateway knows.
 * The creator offers it (the person may choose otherwise); nothing is offered for a shape that
 * could be anyone's. Pure: the sample's first row, flattened to dotted paths as samples are.
 */
import type { SignatureScheme } from '../../schemas/translator-signature.ts';

export interface SchemeOffer {
  readonly scheme: SignatureScheme;
  /** Why, in words, for the page. */
  readonly why: string;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const nests = (row: Readonly<Record<string, unknown>>, prefix: string) =>
  Object.keys(row).some((k) => k.startsWith(prefix));

/**
 * PayPal's webhook event (`WH-…` id, an `event_type` such as PAYMENT.SALE.COMPLETED, a
 * `resource_type` and a `resource`) → `paypal`; Amazon SNS's message (`Type`, `TopicArn`,
 * `SigningCertURL`) → `sns`; else undefined.
 */
export function offeredScheme(rows: readonly Readonly<Record<string, unknown>>[]): SchemeOffer | undefined {
  const row = rows[0];
  if (!row) return undefined;
  if (
    /^WH-[A-Z0-9-]+$/.test(text(row['id'])) &&
    /^[A-Z]+(?:\.[A-Z_]+)+$/.test(text(row['event_type'])) &&
    text(row['resource_type']) !== '' &&
    (nests(row, 'resource.') || row['resource'] !== undefined)
  )
    return {
      scheme: 'paypal',
      why: `a PayPal webhook event (${text(row['event_type'])}): PayPal signs it with its certificate (scheme paypal; give the Webhook ID PayPal shows for this URL)`,
    };
  if (
    /^(Notification|SubscriptionConfirmation)$/.test(text(row['Type'])) &&
    text(row['TopicArn']).startsWith('arn:aws') &&
    text(row['SigningCertURL']) !== ''
  )
    return {
      scheme: 'sns',
      why: 'an Amazon SNS message: SNS signs it with its certificate (scheme sns; list the topic in topic_arns)',
    };
  return undefined;
}
