/**
 * How a sender that signs its deliveries proves itself (docs/senders.md): a vendor's own scheme,
 * the generic `hmac` form (which bytes are signed, the digest, its encoding and header, a signed
 * timestamp), or `sns`, Amazon SNS's RSA signature under a certificate it publishes. Its own
 * module so the translator spec (translator.ts) stays about mapping; translator.ts re-exports it.
 */
import Type, { type Static } from 'typebox';

/** Secret Manager names (the way destinations name theirs: adapters/secrets.ts), never values. */
const SecretName = Type.String({
  pattern: '^[A-Za-z0-9_-]{1,255}$',
  description: 'A Secret Manager secret name',
});

const HeaderName = (description: string) => Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$', description });

export const TranslatorSignature = Type.Object(
  {
    scheme: Type.Union(
      [
        Type.Literal('stripe'),
        Type.Literal('shopify'),
        Type.Literal('github'),
        Type.Literal('woocommerce'),
        Type.Literal('hubspot'),
        Type.Literal('paddle'),
        Type.Literal('typeform'),
        Type.Literal('calendly'),
        Type.Literal('hmac'),
        Type.Literal('sns'),
        Type.Literal('paypal'),
        Type.Literal('standard_webhooks'),
        Type.Literal('svix'),
      ],
      {
        description:
          'The vendor whose signature is checked, `standard_webhooks` or `svix` for the Standard Webhooks form (`webhook-` or `svix-` headers), `hmac` for the generic form, or `sns` and `paypal` for certificate-signed deliveries (Amazon SNS, PayPal)',
      },
    ),
    secrets: Type.Optional(
      Type.Array(SecretName, {
        minItems: 1,
        maxItems: 2,
        description:
          'The signing secret by name; two during a rotation (either verifies). Every scheme but `sns` and `paypal`',
      }),
    ),
    tolerance_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        description:
          'How old a signed timestamp may be, and how long a delivery is remembered as seen (default 300; HubSpot at most 300)',
      }),
    ),
    header: Type.Optional(HeaderName('`hmac` only: the header (X-Signature)')),
    algorithm: Type.Optional(
      Type.Union(
        [Type.Literal('sha256'), Type.Literal('sha1'), Type.Literal('sha512'), Type.Literal('md5')],
        {
          description: '`hmac` only (default sha256)',
        },
      ),
    ),
    encoding: Type.Optional(
      Type.Union([Type.Literal('hex'), Type.Literal('base64'), Type.Literal('base64url')], {
        description: '`hmac` only (default hex)',
      }),
    ),
    prefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description: '`hmac` only: text before the digest (sha256=)',
      }),
    ),
    signed: Type.Optional(
      Type.Union(
        [
          Type.Literal('body'),
          Type.Literal('url_form'),
          Type.Literal('method_url_body_timestamp'),
          Type.Literal('timestamp_body'),
        ],
        {
          description:
            '`hmac` only: the body (default); `url_form`, the URL called then each form parameter’s name and value, sorted by name (Twilio); `method_url_body_timestamp`, method, URL, body and the timestamp header’s text (HubSpot v3); `timestamp_body`, the timestamp header’s text, a `.`, then the body',
        },
      ),
    ),
    timestamp_header: Type.Optional(
      HeaderName(
        '`hmac` with `signed: method_url_body_timestamp` or `timestamp_body` (and only there): the header with the signed timestamp, seconds or milliseconds since 1970',
      ),
    ),
    delivery_id_header: Type.Optional(
      HeaderName(
        '`hmac` only: the vendor’s delivery id header, which names a delivery in the replay memory (default: the digest of the signed bytes)',
      ),
    ),
    topic_arns: Type.Optional(
      Type.Array(Type.String({ pattern: '^arn:aws[a-z-]*:sns:[a-z0-9-]+:\\d{12}:[A-Za-z0-9_.-]{1,256}$' }), {
        minItems: 1,
        maxItems: 20,
        description: '`sns` only, and required there: the topics whose messages are taken',
      }),
    ),
    webhook_id: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9]{1,64}$',
        description:
          '`paypal` only, and required there: the Webhook ID PayPal gave this listener URL (PayPal signs it into every delivery)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TranslatorSignature = Static<typeof TranslatorSignature>;

/** The signature schemes, by name. */
export type SignatureScheme = TranslatorSignature['scheme'];
/** What the generic `hmac` scheme signs (docs/senders.md names a vendor for each). */
export type SignedKind = NonNullable<TranslatorSignature['signed']>;
