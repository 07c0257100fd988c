/**
 * The apply-time checks of a translator's `auth.signature` (docs/senders.md): which fields go
 * with which scheme, what a `signed` kind needs, and no URL token beside a signature. Beside
 * spec.ts, which calls it, so the signature's rules sit with the schemes.
 */
import type { TranslatorSignature } from '../../schemas/translator-signature.ts';
import type { FieldViolation } from '../validation.ts';
import { CERTIFICATE_SCHEMES } from './signature-header.ts';

/** The vendor schemes that sign a timestamp of their own. */
const TIMESTAMPED: ReadonlySet<string> = new Set([
  'stripe',
  'hubspot',
  'paddle',
  'calendly',
  'paypal',
  'standard_webhooks',
  'svix',
]);

/** The generic kinds that sign the timestamp header's text. */
const SIGNS_TIME: ReadonlySet<string> = new Set(['method_url_body_timestamp', 'timestamp_body']);

/** The fields only the generic scheme takes. */
const GENERIC_ONLY = [
  'header',
  'algorithm',
  'encoding',
  'prefix',
  'signed',
  'timestamp_header',
  'delivery_id_header',
] as const;

/** What is wrong with a translator's signature, at `at` (`spec.auth.signature`). */
export function signatureSpecViolations(
  sig: TranslatorSignature,
  at: string,
  urlToken: boolean | undefined,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const say = (field: string, description: string) => out.push({ field: `${at}.${field}`, description });
  if (sig.scheme !== 'hmac')
    for (const k of GENERIC_ONLY)
      if (sig[k] !== undefined) say(k, `is for the generic hmac scheme; ${sig.scheme} fixes its own`);
  if (CERTIFICATE_SCHEMES.has(sig.scheme)) {
    if (sig.secrets)
      say('secrets', `${sig.scheme} verifies with the vendor’s certificate: it takes no secret`);
  } else if (!sig.secrets) say('secrets', `names the signing secret ${sig.scheme} signs with`);
  if (sig.scheme === 'sns' && !sig.topic_arns)
    say('topic_arns', 'lists the topics taken: anyone can subscribe this URL to a topic of their own');
  if (sig.scheme !== 'sns' && sig.topic_arns) say('topic_arns', 'is for the sns scheme');
  if (sig.scheme === 'paypal' && !sig.webhook_id)
    say('webhook_id', 'is the Webhook ID PayPal gave this URL: PayPal signs it, so it is required');
  if (sig.scheme !== 'paypal' && sig.webhook_id) say('webhook_id', 'is for the paypal scheme');
  const signedTime = SIGNS_TIME.has(sig.signed ?? 'body');
  if (sig.scheme === 'hmac' && signedTime && !sig.timestamp_header)
    say('timestamp_header', `names the header whose timestamp ${sig.signed} signs`);
  if (sig.scheme === 'hmac' && sig.timestamp_header && !signedTime)
    say(
      'timestamp_header',
      `goes with signed: method_url_body_timestamp or timestamp_body: under ${sig.signed ?? 'body'} the timestamp is not signed, so a replay could freshen it`,
    );
  const timed = TIMESTAMPED.has(sig.scheme) || sig.scheme === 'sns' || (sig.scheme === 'hmac' && signedTime);
  if (sig.tolerance_seconds !== undefined && !timed)
    say(
      'tolerance_seconds',
      `${sig.scheme === 'hmac' ? `hmac under signed: ${sig.signed ?? 'body'}` : sig.scheme} signs no timestamp (only ${[...TIMESTAMPED].join(', ')}, sns and hmac with method_url_body_timestamp or timestamp_body do)`,
    );
  if (urlToken)
    out.push({
      field: `${at.replace(/\.signature$/, '')}.url_token`,
      description: 'a translator with a signature takes signed bodies only: drop one of the two',
    });
  return out;
}
