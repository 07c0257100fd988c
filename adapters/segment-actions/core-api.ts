/**
 * What the `segment_action` runtime (run.ts, run-oauth.ts) reads and calls of actions-core: a
 * loaded destination definition, its `Destination` instance, the credentials its refresh takes,
 * and where refresh tokens survive the instance. Types only.
 */
import type { BatchableAction, MultiStatusNode } from '../../core/platforms/segment-action/batching.ts';
import type { PresetField } from '../../core/platforms/segment-action/presets.ts';
import type {
  RefreshTokenVersions,
  RotationClock,
} from '../../core/platforms/segment-action/refresh-rotation.ts';

/** Where refresh tokens survive the instance (forward-catalog's index.ts builds it). */
export interface RefreshTokenStore {
  versions(secret: string): RefreshTokenVersions;
  readonly clock: RotationClock;
}

/** What the runtime reads of a loaded destination definition (actions-core's DestinationDefinition). */
export interface LoadedDefinition {
  readonly name: string;
  readonly authentication?: { readonly scheme?: string; readonly refreshAccessToken?: unknown };
  readonly actions: Readonly<
    Record<
      string,
      BatchableAction & {
        readonly defaultSubscription?: string;
        readonly fields: Record<string, PresetField>;
      }
    >
  >;
  /** Segment's presets: an action, a subscription and a mapping each (presets.ts reads them). */
  readonly presets?: readonly Readonly<Record<string, unknown>>[];
}

/** What the runtime calls of actions-core's `Destination` instance. */
export interface CoreDestination {
  validateSettings(settings: Record<string, unknown>): void;
  onSubscription(
    subscription: { subscribe: string; partnerAction: string; mapping: Record<string, unknown> },
    event: Record<string, unknown> | readonly Record<string, unknown>[],
    settings: Record<string, unknown>,
    auth: Record<string, unknown>,
  ): Promise<readonly { readonly output?: unknown; readonly multistatus?: readonly MultiStatusNode[] }[]>;
  /** actions-core's call of the definition's `refreshAccessToken` (undefined when it has none). */
  refreshAccessToken(
    settings: Record<string, unknown>,
    oauth: OAuthCredentials,
  ): Promise<{ readonly accessToken?: unknown; readonly refreshToken?: unknown } | undefined>;
}

/** What actions-core's refresh reads (its OAuth2ClientCredentials). */
export interface OAuthCredentials {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly clientId: string;
  readonly clientSecret: string;
}
