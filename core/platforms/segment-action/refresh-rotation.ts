/**
 * Refresh tokens that survive (issue #100; docs/catalog-destinations.md, "OAuth"): a provider that
 * rotates refresh tokens answers a new one at each refresh and takes the used one back, so the
 * token lives in Secret Manager, not in an instance's memory, and only one instance refreshes from
 * a given version at a time.
 *
 * The claim is a compare-and-swap on the newest version of the connection's refresh-token secret:
 * an instance reads the newest version (its value, state and etag), then disables it with that
 * etag. Secret Manager takes the first disable and refuses every other with ABORTED (the etag
 * changed), so exactly one instance refreshes with that token. It then adds the rotated token as a
 * new version (the claim ends: the newest version is enabled again), or, when the provider kept
 * the token, enables the version it disabled. The others, finding the newest version disabled,
 * wait for the next one and refresh from it in turn: parallel refreshes never send one token twice,
 * so none is answered `invalid_grant`. A claim whose holder died (the newest version disabled for
 * longer than TAKEOVER_MS) is taken over by enabling it again, with its etag too.
 *
 * Pure: Secret Manager, the clock and the waiting are given (adapters/secret-versions.ts).
 */

/** A secret version as the claim reads it. */
export interface SecretVersionState {
  /** Its number. */
  readonly version: string;
  readonly state: 'ENABLED' | 'DISABLED' | 'DESTROYED';
  readonly etag: string;
}

/** The versions of one refresh-token secret. */
export interface RefreshTokenVersions {
  /** The newest version (Secret Manager's `latest`), undefined when the secret has none. */
  latest(): Promise<SecretVersionState | undefined>;
  /**
   * The value of one version; undefined when it is no longer enabled (FAILED_PRECONDITION: another
   * instance disabled it, its claim, between our `latest` and this read).
   */
  access(version: string): Promise<string | undefined>;
  /** Disables the version if its etag still matches; undefined when it does not (ABORTED). */
  disable(v: SecretVersionState): Promise<SecretVersionState | undefined>;
  /** Enables the version if its etag still matches; undefined when it does not (ABORTED). */
  enable(v: SecretVersionState): Promise<SecretVersionState | undefined>;
  /** Adds a version with this value; its number. */
  add(value: string): Promise<string>;
}

export interface RotationClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** What a refresh answered: the access token, and the refresh token when the provider rotated it. */
export interface Refreshed {
  readonly refreshToken?: string;
}

/** A claim older than this is the claim of an instance that died before it ended. */
export const TAKEOVER_MS = 20_000;
/** A delivery waits at most this long for another instance's refresh, then is retried later. */
export const WAIT_BUDGET_MS = 30_000;
const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 1_000;

/** actions-core's code for an error worth another attempt (outcome.ts makes it a `retry`). */
export const RETRYABLE_CODE = 'RETRYABLE_ERROR';

/** Another instance's refresh did not end in time: retryable, the delivery comes back. */
export class RotationBusy extends Error {
  readonly code = RETRYABLE_CODE;
  constructor(secret: string) {
    super(`another instance is refreshing the token of ${secret}: retried later`);
    this.name = 'RotationBusy';
  }
}

/**
 * Refreshes with the newest refresh token under the claim, writing a rotated one back; the
 * refresh's answer. Throws what the refresh threw (the claim ended first), RotationBusy when
 * another instance held the claim too long, or an Error when the secret has no usable version.
 */
export async function refreshUnderClaim<R extends Refreshed>(
  secret: string,
  versions: RefreshTokenVersions,
  refresh: (refreshToken: string) => Promise<R>,
  clock: RotationClock,
): Promise<R> {
  const start = clock.now();
  let seen: { version: string; since: number } | undefined;
  let wait = FIRST_WAIT_MS;
  for (;;) {
    const v = await versions.latest();
    if (!v || v.state === 'DESTROYED')
      throw new Error(`secret ${secret} has no refresh token (no version, or its newest is destroyed)`);
    if (v.state === 'ENABLED') {
      // The value first: a disabled version cannot be read, and a version's value never changes.
      const token = await versions.access(v.version);
      if (token === undefined) continue; // claimed elsewhere since our read of the newest version
      const claimed = await versions.disable(v);
      if (claimed) return refreshed(claimed, token, versions, refresh);
      continue; // another instance claimed it between our read and our disable
    }
    // Disabled: a refresh is in progress elsewhere, or its instance died.
    if (seen?.version !== v.version) seen = { version: v.version, since: clock.now() };
    else if (clock.now() - seen.since >= TAKEOVER_MS) {
      await versions.enable(v); // undefined: someone else took it over first
      seen = undefined;
      continue;
    }
    if (clock.now() - start >= WAIT_BUDGET_MS) throw new RotationBusy(secret);
    await clock.sleep(wait);
    wait = Math.min(wait * 2, LONGEST_WAIT_MS);
  }
}

/** The refresh under a claim, and the claim's end: a new version, or the claimed one enabled again. */
async function refreshed<R extends Refreshed>(
  claimed: SecretVersionState,
  token: string,
  versions: RefreshTokenVersions,
  refresh: (refreshToken: string) => Promise<R>,
): Promise<R> {
  let answered: R;
  try {
    answered = await refresh(token);
  } catch (err) {
    // The token was not used up (or the provider refused it for good): the others may try it.
    await versions.enable(claimed);
    throw err;
  }
  if (answered.refreshToken !== undefined && answered.refreshToken !== token)
    await versions.add(answered.refreshToken);
  else await versions.enable(claimed);
  return answered;
}
