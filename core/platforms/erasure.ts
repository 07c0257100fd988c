/**
 * What a platform's erasure slot speaks (PlatformSpec.erasure; docs/privacy.md, "Erasure today"):
 * the person erased by their raw identifiers, the requests that ask a platform to delete them,
 * and the gaps where it cannot be asked. The platforms with a deletion API fill the slot in their
 * folder (ga4/erasure.ts); core/privacy/platform-erasure.ts walks the settings and calls it.
 */
import type { Destination } from '../../schemas/settings.ts';

/** The person erased, by their raw identifiers (an e-mail or phone may also be its SHA-256 hex). */
export interface ErasedPerson {
  readonly emails: readonly string[];
  readonly phones: readonly string[];
  readonly userIds: readonly string[];
  readonly anonymousIds: readonly string[];
}

/**
 * How a request is authorised, by the secrets' names (never their values): a Google OAuth token
 * for `scope` — from the credentials in `credentialsSecret`, or else the calling function's own
 * service account — or a Meta token from `tokenSecret`, added to the URL as `access_token`.
 */
export type ErasureAuth =
  | { readonly kind: 'google_oauth'; readonly scope: string; readonly credentialsSecret?: string }
  | { readonly kind: 'meta_token'; readonly tokenSecret: string };

/** One HTTP request of an erasure, without its credential. */
export interface ErasureHttpRequest {
  readonly method: 'POST' | 'DELETE';
  readonly url: string;
  readonly body: Readonly<Record<string, unknown>>;
  readonly auth: ErasureAuth;
  readonly timeoutMs: number;
}

/** A request to one platform: `platform` the destination type or sync destination kind, `target` its id or sync name. */
export interface PlatformErasureRequest {
  readonly platform: string;
  readonly target: string;
  readonly request: ErasureHttpRequest;
  /** What it asks, in words, without the identifiers (`user id deletion`, `removal of 2 identifier(s)`). */
  readonly asks: string;
  /** The field of a 2xx answer that is the platform's receipt (`deletionRequestTime`, `requestId`). */
  readonly receipt: string;
  /** What it does not carry: identifiers the platform's normalisation could not use. */
  readonly note?: string;
}

/** A destination the request list leaves out, and why. */
export interface ErasureGap {
  readonly platform: string;
  readonly target: string;
  readonly reason: string;
}

/** Trimmed, non-empty, each once, in the order given: a person's identifiers of one kind. */
export const distinctIds = (values: readonly string[]): string[] => [
  ...new Set(values.map((v) => v.trim()).filter((v) => v !== '')),
];

/** Timeout of an erasure request when the destination or connection sets none. */
export const ERASURE_TIMEOUT_MS = 30_000;

/** The identifiers a deletion API takes, by the erased person's fields. */
export type ErasureIdentifier = 'user_id' | 'anonymous_id' | 'email' | 'phone';

/** How a platform deletes a person from what its destinations received (PlatformSpec.erasure). */
export interface ErasureSlot {
  /** The deletion API's origin (a destination's `user_deletion.url` replaces it). */
  readonly baseUrl: string;
  /** How its requests are authorised (Google OAuth with a scope, or a token secret). */
  readonly auth: ErasureAuth;
  /** The identifier kinds it deletes by. */
  readonly identifiers: readonly ErasureIdentifier[];
  /** The destination's requests for `person`, or why this destination cannot be asked. */
  requests(destination: Readonly<Destination>, person: ErasedPerson): PlatformErasureRequest[] | ErasureGap;
}
