/**
 * Amazon SNS's message signatures (docs/senders.md, "Amazon SNS"), as AWS documents them in
 * "Verifying the signatures of Amazon SNS messages"
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html): the JSON
 * body names the certificate (`SigningCertURL`) whose RSA key signed a canonical string of
 * some of its fields, SHA1withRSA for `SignatureVersion` 1, SHA256withRSA for 2. The URL must be
 * https on Amazon SNS's own domain (the pin) before anything is fetched, and the topic one the
 * translator lists: anyone can subscribe a URL to a topic of their own. The certificate itself
 * is fetched and cached by the caller (gateway/signing-certificates.ts).
 */
import { createHash, createSign, createVerify, type X509Certificate } from 'node:crypto';
import type { TranslatorSignature } from '../../schemas/translator-signature.ts';
import { andThen, type MaybePromise } from '../maybe-async.ts';
import { fresh, refuse, type SignatureCheck } from './signature-check.ts';

/** The hosts SNS signing certificates are served from: sns.<region>.amazonaws.com(.cn). */
export const SNS_CERTIFICATE_HOST = /^sns\.[a-z0-9-]{3,}\.amazonaws\.com(\.cn)?$/;

/** A certificate by its URL, or why it could not be had (the gateway answers 503: SNS retries). */
export type CertificateAnswer =
  | { readonly ok: true; readonly certificate: X509Certificate }
  | { readonly ok: false; readonly detail: string };
export type CertificateSource = (url: string) => MaybePromise<CertificateAnswer>;

/** The fields each message type signs, in AWS's order. */
const SIGNED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: [
    'Message',
    'MessageId',
    'SubscribeURL',
    'Timestamp',
    'Token',
    'TopicArn',
    'Type',
  ],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

const ALGORITHM: Readonly<Record<string, string>> = { '1': 'RSA-SHA1', '2': 'RSA-SHA256' };

/**
 * The string SNS signs: each signed field present, as `name\nvalue\n`, in order (`Subject` only
 * when the message has one); undefined when a required field is not a string.
 */
export function snsStringToSign(msg: Readonly<Record<string, unknown>>): string | undefined {
  const fields = SIGNED_FIELDS[String(msg['Type'])];
  if (!fields) return undefined;
  let out = '';
  for (const f of fields) {
    const v = msg[f];
    if (v === undefined && f === 'Subject') continue;
    if (typeof v !== 'string') return undefined;
    out += `${f}\n${v}\n`;
  }
  return out;
}

/** Why a SigningCertURL is not Amazon SNS's, or undefined when it is (https, the pinned host, a .pem). */
export function unpinnedCertificateUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'SigningCertURL is not a URL';
  }
  if (u.protocol !== 'https:' || u.username || u.password || u.port || !u.pathname.endsWith('.pem'))
    return `SigningCertURL ${url.slice(0, 200)} is not an https .pem URL of Amazon SNS`;
  if (!SNS_CERTIFICATE_HOST.test(u.hostname))
    return `SigningCertURL's host ${u.hostname.slice(0, 100)} is not Amazon SNS's (sns.<region>.amazonaws.com)`;
  return undefined;
}

function parseMessage(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks an SNS message: its form, the certificate URL's pin and the topic before anything is
 * fetched, then the RSA signature under the certificate (valid now), then, where the translator
 * sets `tolerance_seconds`, its `Timestamp` (SNS's retries keep the first attempt's). The
 * delivery is named by the signed `MessageId`.
 */
export function verifySns(
  sig: TranslatorSignature,
  body: Uint8Array,
  nowMs: number,
  certificates: CertificateSource | undefined,
): MaybePromise<SignatureCheck> {
  const msg = parseMessage(body);
  if (!msg || msg['Signature'] === undefined)
    return refuse('missing_signature', 'the body is not an SNS message with a Signature');
  const algorithm = ALGORITHM[String(msg['SignatureVersion'])];
  const text = snsStringToSign(msg);
  const signature = msg['Signature'];
  const certUrl = msg['SigningCertURL'];
  if (!algorithm || text === undefined || typeof signature !== 'string' || typeof certUrl !== 'string')
    return refuse('malformed_signature', 'the body is not a signed SNS message (SignatureVersion 1 or 2)');
  const unpinned = unpinnedCertificateUrl(certUrl);
  if (unpinned) return refuse('bad_signature', unpinned);
  const topic = String(msg['TopicArn']);
  if (!sig.topic_arns?.includes(topic))
    return refuse(
      'bad_signature',
      `TopicArn ${topic.slice(0, 300)} is not among the translator’s topic_arns`,
    );
  if (!certificates) return refuse('certificate_unavailable', 'no way to fetch SNS signing certificates');
  return andThen(certificates(certUrl), (answer): SignatureCheck => {
    if (!answer.ok) return refuse('certificate_unavailable', answer.detail);
    const cert = answer.certificate;
    if (nowMs < Date.parse(cert.validFrom) || nowMs > Date.parse(cert.validTo))
      return refuse('bad_signature', 'the SNS signing certificate is not valid now');
    const verified = createVerify(algorithm).update(text).verify(cert.publicKey, signature, 'base64');
    if (!verified)
      return refuse('bad_signature', 'Signature does not verify under the SNS signing certificate');
    if (sig.tolerance_seconds !== undefined) {
      const at = Date.parse(String(msg['Timestamp']));
      if (!fresh(at / 1000, nowMs, sig.tolerance_seconds))
        return refuse('stale_signature', `Timestamp is more than ${sig.tolerance_seconds} s old`);
    }
    const id = msg['MessageId'];
    return {
      ok: true,
      delivery:
        typeof id === 'string' && id !== ''
          ? `sns:${id.slice(0, 200)}`
          : `sha256:${createHash('sha256').update(text).digest('base64url')}`,
    };
  });
}

/**
 * Signs an SNS message as AWS does, with `privateKey` (PEM) standing for SNS's: for tests and
 * relays that stand in for SNS. `msg` holds the signed fields and SigningCertURL.
 */
export function signSnsMessage(
  msg: Readonly<Record<string, string>>,
  privateKey: string,
  version: '1' | '2' = '2',
): Record<string, string> {
  const full = { ...msg, SignatureVersion: version };
  const text = snsStringToSign(full);
  if (text === undefined) throw new Error('not an SNS message: its Type or a signed field is missing');
  const signature = createSign(ALGORITHM[version] as string)
    .update(text)
    .sign(privateKey, 'base64');
  return { ...full, Signature: signature };
}
