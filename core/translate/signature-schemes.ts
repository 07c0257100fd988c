/**
 * What each signature scheme checks, in words: the rows of docs/senders.md's scheme table,
 * written by `npm run docs` (scripts/docs-signatures.ts) and checked by
 * test/unit/scripts/docs-generate.test.ts. Keyed by the schema's scheme names, so a scheme added
 * to schemas/translator-signature.ts without its row here does not compile.
 */
import type { SignatureScheme } from '../../schemas/translator-signature.ts';

export interface SchemeFacts {
  /** Where the signature travels. */
  readonly header: string;
  /** What bytes are signed, in order. */
  readonly signed: string;
  /** The digest or signature, its encoding, and the time rule. */
  readonly digest: string;
}

export const SCHEME_FACTS: Readonly<Record<SignatureScheme, SchemeFacts>> = {
  stripe: {
    header: "`Stripe-Signature: t=<s>,v1=<hex>` (several `v1` during Stripe's own rotation)",
    signed: '`t` `.` body',
    digest: 'HMAC-SHA256, hex; `t` within the tolerance',
  },
  shopify: { header: '`X-Shopify-Hmac-Sha256`', signed: 'body', digest: 'HMAC-SHA256, base64' },
  github: { header: '`X-Hub-Signature-256: sha256=<hex>`', signed: 'body', digest: 'HMAC-SHA256, hex' },
  woocommerce: { header: '`X-WC-Webhook-Signature`', signed: 'body', digest: 'HMAC-SHA256, base64' },
  hubspot: {
    header: '`X-HubSpot-Signature-v3`, with `X-HubSpot-Request-Timestamp` (ms)',
    signed:
      'method, URL called (scheme and host included, some characters percent-decoded as HubSpot documents), body, timestamp',
    digest: 'HMAC-SHA256, base64; at most 5 minutes old whatever the tolerance',
  },
  paddle: {
    header: '`Paddle-Signature: ts=<s>;h1=<hex>`',
    signed: '`ts` `:` body',
    digest: 'HMAC-SHA256, hex; `ts` within the tolerance',
  },
  typeform: {
    header: '`Typeform-Signature: sha256=<base64>`',
    signed: 'body',
    digest: 'HMAC-SHA256, base64',
  },
  calendly: {
    header: '`Calendly-Webhook-Signature: t=<s>,v1=<hex>`',
    signed: '`t` `.` body',
    digest: 'HMAC-SHA256, hex; `t` within the tolerance',
  },
  hmac: {
    header: '`header` (default `X-Signature`), after an optional `prefix`',
    signed:
      '`signed`: the body (default), the URL and sorted form parameters, method, URL, body and timestamp, or timestamp `.` body ([below](#the-generic-scheme))',
    digest:
      '`algorithm` sha256 (default), sha1, sha512 or md5; `encoding` hex (default), base64 or base64url',
  },
  sns: {
    header: "none: the `Signature` field of Amazon SNS's JSON body",
    signed: "the message's fields, as AWS lists them",
    digest:
      'RSA (SHA1withRSA for `SignatureVersion` 1, SHA256withRSA for 2) under the certificate at `SigningCertURL` ([below](#amazon-sns-a-published-certificate))',
  },
  paypal: {
    header:
      '`PAYPAL-TRANSMISSION-SIG` (base64), with `PAYPAL-TRANSMISSION-ID`, `PAYPAL-TRANSMISSION-TIME`, `PAYPAL-CERT-URL`, `PAYPAL-AUTH-ALGO`',
    // A `|` in a table cell is escaped (GitHub renders `\|` in a code span as `|`).
    signed:
      'transmission id, transmission time, `webhook_id` and the CRC32 of the body (unsigned decimal), joined by `\\|`',
    digest:
      'RSA, SHA256withRSA, under the certificate at `PAYPAL-CERT-URL` ([below](#paypal-a-certificate-per-delivery)); the time within the tolerance',
  },
  standard_webhooks: {
    header:
      '`webhook-signature: v1,<base64>` (several, space-separated, during a rotation), with `webhook-id` and `webhook-timestamp`',
    signed: '`webhook-id` `.` `webhook-timestamp` `.` body',
    digest:
      'HMAC-SHA256, base64, under the key after `whsec_`; the timestamp within the tolerance ([below](#standard-webhooks-and-svix))',
  },
  svix: {
    header: '`svix-signature: v1,<base64>`, with `svix-id` and `svix-timestamp`',
    signed: '`svix-id` `.` `svix-timestamp` `.` body',
    digest: 'as `standard_webhooks`',
  },
};
