/**
 * Which resource a request addresses, from its path and the environment's topics: the two
 * publish forms, a translator's endpoint, the browser SDKs' paths (Segment's, RudderStack's,
 * Jitsu's), the default paths of other senders (GA4's Measurement Protocol, Snowplow's
 * trackers), health and the OpenAPI document. Pure.
 */
import { eventNameProblem } from '../schemas/catalogue.ts';

const TOPIC_PATH = /^\/v1\/topics\/([^/]+)$/;
const PUBLISH_PATH = /^\/v1\/projects\/([^/]+)\/topics\/([^/]+):publish$/;
/** A translator, and optionally its URL credential as the last segment (docs/senders.md). */
const TRANSLATOR_PATH = /^\/v1\/translators\/([a-z][a-z0-9_-]{0,62})(?:\/([A-Za-z0-9_-]{1,128}))?$/;
const NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const RESERVED_TOPICS = new Set(['deliveries']);

/** Where a publish goes: a configured topic, or `events` under an event name from the path. */
export interface Target {
  readonly topic: string;
  readonly eventName?: string;
}

export type Route =
  | { readonly kind: 'health' }
  | { readonly kind: 'openapi' }
  /**
   * The first-party tag's script, `GET /v1/tag.js`, and its consent platform reader,
   * `GET /v1/tag-cmp.js` (gateway/tag-route.ts, docs/browser.md).
   */
  | { readonly kind: 'tag'; readonly part: 'tag' | 'cmp' }
  | { readonly kind: 'publish'; readonly form: 'topics' | 'publish'; readonly target: Target }
  | {
      readonly kind: 'translate';
      readonly translator: string;
      /** A credential given in the path (senders that can only be given a URL). */
      readonly pathCredential?: string;
    }
  | {
      /**
       * Segment's HTTP API paths (RudderStack's are the same), the short ones Analytics.js posts
       * to, RudderStack's beacon and Jitsu's: served by the translator named `segment`
       * (docs/senders.md).
       */
      readonly kind: 'segment';
      readonly call: SegmentCall;
      readonly sdk: SdkPath;
    }
  | {
      /**
       * What a browser SDK reads before it sends (`GET`): Analytics.js's settings
       * (`/v1/projects/{writeKey}/settings`) and RudderStack's source config (`/sourceConfig`),
       * answered by the gateway so the SDK posts back to it.
       */
      readonly kind: 'sdk_settings';
      readonly sdk: 'segment' | 'rudderstack';
    }
  /** Analytics.js's own telemetry (`/v1/m`): answered, never published. */
  | { readonly kind: 'sdk_metrics' }
  /**
   * A sender's own default path, served by a catalogue source's translator (gateway/collect-paths.ts,
   * docs/senders.md "Default paths"): GA4's `/mp/collect` and `/debug/mp/collect`, Snowplow's
   * `tp2` POST and `/i` pixel.
   */
  | { readonly kind: 'collect'; readonly collector: Collector }
  | { readonly kind: 'not_found' };

/** The calls of Segment's HTTP API (RudderStack's is the same): a batch, or one call of a type. */
export type SegmentCall = 'batch' | 'track' | 'identify' | 'page' | 'screen' | 'group' | 'alias';
/**
 * How an SDK's path carries its credential and body: `http-api`, Segment's and RudderStack's
 * paths (HTTP Basic, or X-Write-Key); `beacon`, RudderStack's `sendBeacon` batch (the key in
 * `?writeKey=`, which a beacon cannot put in a header); `jitsu`, Jitsu's `/api/s/{type}` (the
 * key in X-Write-Key, as Jitsu's `id:secret`).
 */
export type SdkPath = 'http-api' | 'beacon' | 'jitsu';
const SEGMENT_PATH = /^\/v1\/(batch|track|identify|page|screen|group|alias|[tpigasb])$/;
/** Analytics.js names its paths by the call type's first letter (`/v1/t`, `/v1/p`, …). */
const SHORT_CALLS: Readonly<Record<string, SegmentCall>> = {
  t: 'track',
  p: 'page',
  i: 'identify',
  g: 'group',
  a: 'alias',
  s: 'screen',
  b: 'batch',
};
const BEACON_PATH = '/beacon/v1/batch';
/** Jitsu's browser (`/api/s/{type}`) and server-to-server (`/api/s/s2s/{type}`) paths. */
const JITSU_PATH = /^\/api\/s\/(?:s2s\/)?(track|identify|page|screen|group|alias)$/;
const SEGMENT_SETTINGS_PATH = /^\/v1\/projects\/[^/]{1,200}\/settings$/;
const RUDDERSTACK_CONFIG_PATH = /^\/sourceConfig\/?$/;
/**
 * The default paths of senders that are not Segment-compatible: `ga4` (GA4 Measurement
 * Protocol's `/mp/collect`), `ga4-debug` (its validation server's `/debug/mp/collect`),
 * `snowplow-post` (the trackers' default POST path) and `snowplow-pixel` (their GET `/i`).
 */
export type Collector = 'ga4' | 'ga4-debug' | 'snowplow-post' | 'snowplow-pixel';
const COLLECT_PATHS: Readonly<Record<string, Collector>> = {
  '/mp/collect': 'ga4',
  '/debug/mp/collect': 'ga4-debug',
  '/com.snowplowanalytics.snowplow/tp2': 'snowplow-post',
  '/i': 'snowplow-pixel',
};
/** What a Segment-compatible sender's calls are translated by. */
export const SEGMENT_TRANSLATOR = 'segment';

/** The path and query of a request URL (no URL parsing for the common case). */
export function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/** Resolves a request path against the project and its producer topics. */
export function route(path: string, project: string, topics: ReadonlySet<string>): Route {
  if (path === '/health') return { kind: 'health' };
  if (path === '/v1/openapi.json') return { kind: 'openapi' };
  if (path === '/v1/tag.js') return { kind: 'tag', part: 'tag' };
  if (path === '/v1/tag-cmp.js') return { kind: 'tag', part: 'cmp' };
  const tm = TOPIC_PATH.exec(path);
  if (tm) {
    const target = resolveTopic(tm[1] as string, topics);
    return target ? { kind: 'publish', form: 'topics', target } : { kind: 'not_found' };
  }
  const sm = SEGMENT_PATH.exec(path);
  if (sm) {
    const call = sm[1] as string;
    return { kind: 'segment', call: SHORT_CALLS[call] ?? (call as SegmentCall), sdk: 'http-api' };
  }
  const sdk = sdkRoute(path);
  if (sdk) return sdk;
  const xm = TRANSLATOR_PATH.exec(path);
  if (xm)
    return {
      kind: 'translate',
      translator: xm[1] as string,
      ...(xm[2] !== undefined ? { pathCredential: xm[2] } : {}),
    };
  const pm = PUBLISH_PATH.exec(path);
  if (pm) {
    const topic = pm[2] as string;
    return pm[1] === project && NAME.test(topic) && topics.has(topic)
      ? { kind: 'publish', form: 'publish', target: { topic } }
      : { kind: 'not_found' };
  }
  return { kind: 'not_found' };
}

/**
 * The browser SDKs' other paths (beacon, Jitsu, their settings and Analytics.js's telemetry) and
 * the other senders' default paths.
 */
function sdkRoute(path: string): Route | undefined {
  const collector = Object.hasOwn(COLLECT_PATHS, path) ? COLLECT_PATHS[path] : undefined;
  if (collector) return { kind: 'collect', collector };
  if (path === BEACON_PATH) return { kind: 'segment', call: 'batch', sdk: 'beacon' };
  if (path === '/v1/m') return { kind: 'sdk_metrics' };
  const jm = JITSU_PATH.exec(path);
  if (jm) return { kind: 'segment', call: jm[1] as SegmentCall, sdk: 'jitsu' };
  if (SEGMENT_SETTINGS_PATH.test(path)) return { kind: 'sdk_settings', sdk: 'segment' };
  if (RUDDERSTACK_CONFIG_PATH.test(path)) return { kind: 'sdk_settings', sdk: 'rudderstack' };
  return undefined;
}

/** The topic segment of the plain form: a configured topic, or an event name aliasing `events`. */
function resolveTopic(segment: string, topics: ReadonlySet<string>): Target | undefined {
  if (!NAME.test(segment) || RESERVED_TOPICS.has(segment)) return undefined;
  if (topics.has(segment)) return { topic: segment };
  if (eventNameProblem(segment) === undefined) return { topic: 'events', eventName: segment };
  return undefined;
}
