/**
 * The catalogue of Segment's Action Destinations (issue #65; docs/linkage.md#catalogue): the
 * manifest scripts/segment-catalog.ts generates at build time (catalog.json beside this file),
 * read once, so listing, checking or rendering a `segment_action` destination never loads the
 * 170 destination modules. Plain data and no `node:` import: the studio's pages may bundle it.
 */

/**
 * How a destination authenticates: `api_key`, `basic`, `custom` and `none` take their credentials
 * from settings and secrets; `oauth2` and `oauth-managed` need an OAuth token: an `oauth2`
 * connection (oauth.ts), or for OAUTH_TOKEN_AS_SECRET an access token as a secret.
 */
import { type CatalogAuth, isOAuth } from './auth-kind.ts';
import manifest from './catalog.json' with { type: 'json' };
import { oauthDefinition } from './oauth.ts';

export type { CatalogAuth };

/** A destination's settings field (its `authentication.fields`). */
export interface CatalogSetting {
  readonly key: string;
  readonly label: string;
  /** actions-core's GlobalSetting type: `string`, `password`, `number` or `boolean`. */
  readonly type: string;
  readonly required: boolean;
  /** A credential (a password field, or one named a key, token or secret): a secret, not config. */
  readonly secret?: true;
  readonly description?: string;
  readonly default?: string | number | boolean;
  readonly choices?: readonly { readonly value: string | number; readonly label: string }[];
}

/** One of these settings must be given (from the destination's `testAuthentication`). */
export interface CatalogSettingRule {
  readonly anyOf: readonly string[];
  readonly message: string;
}

/** A nested property of an object field (Klaviyo's `profile.email`). */
export interface CatalogProperty {
  readonly key: string;
  readonly label: string;
  readonly type: string;
  readonly required: boolean;
  readonly multiple?: boolean;
  /** Its own preset; actions-core does not compose these into the object's default. */
  readonly default?: unknown;
}

/** One field of an action (actions-core's InputField, the parts a form and a check need). */
export interface CatalogField {
  readonly key: string;
  readonly label: string;
  /** `string`, `text`, `number`, `integer`, `datetime`, `boolean`, `password` or `object`. */
  readonly type: string;
  /** Required always (a field required only under conditions says `conditional`). */
  readonly required: boolean;
  readonly conditional?: boolean;
  readonly multiple?: boolean;
  readonly description?: string;
  /** Its JSON Schema format where the definition gives one (`uri`, `email`, `date-time`, `uuid`). */
  readonly format?: string;
  /** The preset: a value or a mapping-kit directive (`{"@path": "$.userId"}`). */
  readonly default?: unknown;
  readonly choices?: readonly { readonly value: string | number; readonly label: string }[];
  readonly properties?: readonly CatalogProperty[];
}

export interface CatalogAction {
  readonly key: string;
  readonly title: string;
  readonly description?: string;
  /** The events it takes unless the settings say `when` (Segment's subscription language, FQL). */
  readonly defaultSubscription?: string;
  /**
   * How its records are synced (actions-core's `syncMode`), for the actions that ask: the modes it
   * offers and the one Segment's app preselects. The mapping carries the chosen one under
   * presets.ts SYNC_MODE_KEY; without it, such an action refuses every event (`Sync mode undefined`).
   */
  readonly syncMode?: { readonly default?: string; readonly choices: readonly string[] };
  /**
   * Its hooks (actions-core's `onMappingSave`, `retlOnMappingSave`): Segment's app runs one when the
   * mapping is saved (it creates or picks the conversion rule, the user list) and keeps its result
   * in the mapping under the hook's name, `{"outputs": {…}}`, which the action reads at each event.
   */
  readonly hooks?: readonly string[];
  readonly fields: readonly CatalogField[];
  /**
   * The client of its own the action sends with (`kafkajs`, `ssh2-sftp-client`, the AWS SDK), found
   * in its code when the catalogue is generated (scripts/segment-transport.ts): its connections
   * would go around the egress gate, so the settings check refuses it and the runtime never runs it.
   */
  readonly transport?: string;
}

/**
 * A preset the destination comes with (Segment's `presets`): an automatic one has a subscription and
 * its mapping as it differs from the action's field defaults (presets.ts `presetOf`); the others
 * (Segment's warehouse and journeys events) name an `eventSlug` and never run here.
 */
export interface CatalogPreset {
  readonly name: string;
  readonly action: string;
  readonly subscribe?: string;
  readonly mapping?: Readonly<Record<string, unknown>>;
  readonly omit?: readonly string[];
  readonly eventSlug?: string;
}

export interface CatalogEntry {
  /** The folder name under the package's dist/destinations: settings' `destination`. */
  readonly slug: string;
  readonly name: string;
  readonly description?: string;
  /** Derived from the name and description at generation (Segment's definitions carry none). */
  readonly category?: string;
  readonly auth: CatalogAuth;
  readonly authFields: readonly CatalogSetting[];
  readonly actions: readonly CatalogAction[];
  readonly presets?: readonly CatalogPreset[];
  /**
   * Settings the destination's own `testAuthentication` refuses to go without though no field is
   * flagged required — what Segment's app refuses when the destination is connected: one of
   * `anyOf` must be given (GA4: a Measurement ID or a Firebase App ID), with Segment's message.
   */
  readonly settingRules?: readonly CatalogSettingRule[];
  /**
   * The settings of each audience connected to it (Segment's `audienceFields`, which Segment's app
   * asks when an audience is connected: Dynamic Yield's `audience_name`): an audience sync's `settings`.
   */
  readonly audienceFields?: readonly CatalogSetting[];
  readonly loads: true;
}

export interface CatalogManifest {
  readonly package: string;
  /** The installed package's version the manifest was generated from. */
  readonly version: string;
  readonly destinations: readonly CatalogEntry[];
  readonly unloadable: readonly { readonly slug: string; readonly reason: string }[];
}

/**
 * OAuth destinations whose access token can be supplied as a secret and used as a bearer token
 * without a refresh: HubSpot's private-app tokens, Attio's workspace access tokens and Intercom's
 * private-app access tokens are long-lived and sent by the actions as `Bearer`. They work as
 * they are; every OAuth destination may instead name an `oauth2` connection (oauth.ts).
 */
export const OAUTH_TOKEN_AS_SECRET: ReadonlySet<string> = new Set(['hubspot', 'attio', 'intercom']);

// The JSON's inferred type is wide (every literal); the generator writes this shape.
const MANIFEST = manifest as unknown as CatalogManifest;
const BY_SLUG: ReadonlyMap<string, CatalogEntry> = new Map(MANIFEST.destinations.map((d) => [d.slug, d]));

/** The manifest: the package version it describes, every loadable destination, the unloadable. */
export function catalogManifest(): CatalogManifest {
  return MANIFEST;
}

/** Every loadable destination, by slug. */
export function catalogList(): readonly CatalogEntry[] {
  return MANIFEST.destinations;
}

/** One destination by its slug (folder name), or undefined when the catalogue has none. */
export function catalogEntry(slug: string): CatalogEntry | undefined {
  return BY_SLUG.get(slug);
}

/**
 * Why the destination cannot be configured here, in its user's words, or undefined when it can:
 * none whose every action has a client of its own (`transport`: the settings check refuses
 * those); every kind but OAuth from settings and secrets; an OAuth one with an `oauth2`
 * connection when the build read its definition (oauth.ts: every OAuth destination of the
 * manifest), and the three of OAUTH_TOKEN_AS_SECRET with a token alone.
 */
export function catalogUnsupported(entry: CatalogEntry): string | undefined {
  // One whose every action connects by a client of its own is refused whatever its credentials.
  if (entry.actions.every((a) => a.transport !== undefined)) {
    const clients = [...new Set(entry.actions.map((a) => a.transport))].join(', ');
    return `Every action of this destination sends over a client of its own (${clients}), not through the egress gate every call out passes: not supported.`;
  }
  const oauthOk =
    !isOAuth(entry.auth) ||
    OAUTH_TOKEN_AS_SECRET.has(entry.slug) ||
    oauthDefinition(entry.slug) !== undefined;
  return oauthOk
    ? undefined
    : 'This destination needs OAuth, which the runtime cannot refresh: not supported.';
}

/** Whether the destination can be configured here (catalogUnsupported gives why not). */
export function catalogSupported(entry: CatalogEntry): boolean {
  return catalogUnsupported(entry) === undefined;
}

/** What search looks in: slug, name, category, auth kind and action titles, lower-cased. */
export function catalogSearchText(d: CatalogEntry): string {
  return [d.slug, d.name, d.category ?? '', d.auth, ...d.actions.map((a) => a.title)].join(' ').toLowerCase();
}

/** Destinations whose search text (catalogSearchText) contains the text, case-insensitively. */
export function catalogSearch(text: string, list: readonly CatalogEntry[] = catalogList()): CatalogEntry[] {
  const q = text.trim().toLowerCase();
  return q === '' ? [...list] : list.filter((d) => catalogSearchText(d).includes(q));
}
