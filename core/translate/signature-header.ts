/**
 * The header each signature scheme reads. Its own module, without node:crypto, because the
 * translation engine (headers.ts) needs the names in the studio's browser bundle too, where the
 * checks themselves (signatures.ts) do not run.
 */
import type { TranslatorSpec } from '../../schemas/translator.ts';
import type { SignatureScheme, TranslatorSignature } from '../../schemas/translator-signature.ts';

/**
 * The schemes verified under a certificate the vendor publishes (Amazon SNS, PayPal): no shared
 * secret, so nothing to store and nothing the studio can sign a test with.
 */
export const CERTIFICATE_SCHEMES: ReadonlySet<SignatureScheme> = new Set<SignatureScheme>(['sns', 'paypal']);

/**
 * The header each scheme reads (lower case, as node gives them); none for `sns`, whose signature
 * travels in the JSON body.
 */
export function signatureHeader(
  sig: TranslatorSignature & { scheme: Exclude<SignatureScheme, 'sns'> },
): string;
export function signatureHeader(sig: TranslatorSignature): string | undefined;
export function signatureHeader(sig: TranslatorSignature): string | undefined {
  switch (sig.scheme) {
    case 'stripe':
      return 'stripe-signature';
    case 'shopify':
      return 'x-shopify-hmac-sha256';
    case 'github':
      return 'x-hub-signature-256';
    case 'woocommerce':
      return 'x-wc-webhook-signature';
    case 'hubspot':
      return 'x-hubspot-signature-v3';
    case 'paddle':
      return 'paddle-signature';
    case 'typeform':
      return 'typeform-signature';
    case 'calendly':
      return 'calendly-webhook-signature';
    case 'paypal':
      return 'paypal-transmission-sig';
    case 'standard_webhooks':
      return 'webhook-signature';
    case 'svix':
      return 'svix-signature';
    case 'hmac':
      return (sig.header ?? 'x-signature').toLowerCase();
    case 'sns':
      return undefined;
  }
}

/**
 * The header a scheme signs that names the message (Standard Webhooks' `webhook-id`, Svix's
 * `svix-id`): the same on every retry of one message, and covered by the signature, so under that
 * scheme it may make the event's id (a `header:` key), where any other header may not.
 */
export function signedIdHeader(sig: TranslatorSignature | undefined): string | undefined {
  if (sig?.scheme === 'standard_webhooks') return 'webhook-id';
  if (sig?.scheme === 'svix') return 'svix-id';
  return undefined;
}

/**
 * A translator spec with its auth (the creator's page adds it after the draft): where the
 * vendor's body gave no key and no event id, a scheme that signs its message id (Standard Webhooks' `webhook-id`,
 * Svix's `svix-id`) keys the rows on that header, the same on every retry of one message, so a
 * retry whose body changed (a send time inside it) is still one event. Else the spec unchanged.
 */
export function keyedBySignature(spec: TranslatorSpec): TranslatorSpec {
  const header = signedIdHeader(spec.auth?.signature);
  if (!header || spec.key || spec.fields.some((f) => f.target === 'event_id')) return spec;
  return { ...spec, key: [`header:${header}`] };
}
