/**
 * What every signature scheme shares (signatures.ts, signature-sns.ts): the request as received,
 * the result of a check (a delivery's name for the replay memory, or why it was refused), and the
 * timestamp window.
 */

/** Seconds a timestamped signature stays valid unless the translator says otherwise. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** What a signature is checked against: the request as received. */
export interface SignedRequest {
  readonly method: string;
  /** The URL the sender called, scheme and host included (HubSpot and `url_form` sign it). */
  readonly url: string;
  /** A header's value by lower-case name. */
  readonly header: (name: string) => string | undefined;
  readonly body: Uint8Array;
}

/** Why a signature was refused: the refusal record's reason. */
export type SignatureRefusal =
  | 'missing_signature'
  | 'malformed_signature'
  | 'bad_signature'
  | 'stale_signature'
  | 'no_secret'
  /** The gateway may not read the signing secret (IAM): ours to grant, the vendor retries. */
  | 'secret_denied'
  /** An SNS signing certificate could not be fetched: ours to retry, not the sender's fault. */
  | 'certificate_unavailable';

export type SignatureCheck =
  | {
      readonly ok: true;
      /**
       * The delivery's name in the replay memory: the vendor's delivery id where the scheme
       * names one, else the SHA-256 of the signed bytes.
       */
      readonly delivery: string;
    }
  | { readonly ok: false; readonly reason: SignatureRefusal; readonly detail: string };

/** A refused check. */
export const refuse = (reason: SignatureRefusal, detail: string): SignatureCheck => ({
  ok: false,
  reason,
  detail,
});

/** A timestamp in seconds checked against the tolerance, either side (a clock skewed ahead too). */
export function fresh(seconds: number, nowMs: number, tolerance: number): boolean {
  return Number.isFinite(seconds) && Math.abs(nowMs / 1000 - seconds) <= tolerance;
}
