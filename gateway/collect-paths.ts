/**
 * The default paths of senders that are not Segment-compatible (docs/senders.md, "Default
 * paths"), so a sender needs only its host changed: GA4's Measurement Protocol (`POST
 * /mp/collect`, and `/debug/mp/collect`, its validation server) served by the translator named
 * `ga4-mp`, and Snowplow's trackers (their default POST path `/com.snowplowanalytics.snowplow/tp2`
 * and the GET pixel `/i`) served by `snowplow`, both as `eventbus source add` makes them. What
 * each path changes of a translator's request: where its credential is, what its body is, what
 * the events keep of the URL, and how it is answered. The rest (scopes, rate limits, the event
 * allow-lists, publishing) is the translator endpoint's (gateway/server.ts, handleTranslate).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../core/errors.ts';
import type { FieldViolation } from '../core/validation.ts';
import { type AuthResult, authenticate, authenticateToken, oneCredential, type Principal } from './auth.ts';
import { type RawBody, readRawBody } from './body.ts';
import { KEY_PREFIX } from './credentials.ts';
import type { EnvelopeContext } from './envelope.ts';
import type { Collector } from './routing.ts';
import { allowOrigin, type Runtime, refuseMethod, send } from './runtime.ts';
import { sdkClient } from './sdk-paths.ts';
import { TRANSLATOR_CHARSETS, translateAnswer } from './translate.ts';

/** What the translator endpoint publishes and answers with (gateway/translate.ts, translateRows). */
export interface CollectRows {
  readonly order: readonly (number | undefined)[];
  readonly violations: readonly FieldViolation[];
}

/** A request's credential, and its body where the body had to be read for it (or is its URL). */
export type CollectCredential =
  | { readonly auth: AuthResult; readonly body?: RawBody }
  | { readonly error: ApiError };

/** How a default path changes the translator endpoint's request (gateway/server.ts, handleTranslate). */
export interface CollectCall {
  /** The translator that serves the path: the catalogue source's name. */
  readonly translator: string;
  /** What a 404 says when that translator is not there. */
  readonly missing: string;
  /** Whether a page's write key may call it (Snowplow's trackers run in pages; GA4's senders are servers). */
  readonly keys: boolean;
  /** Content types taken: what the senders send, read as the JSON it is. */
  readonly media: readonly string[];
  /** The request's credential, where this sender can put one. */
  readonly credential: (rt: Runtime, req: IncomingMessage) => Promise<CollectCredential>;
  /** Top-level fields every record has unless it sets them: what the URL says of the events. */
  readonly defaults?: Readonly<Record<string, unknown>>;
  /** The client the events come from (a page's key is the browser's). */
  readonly client: (rt: Runtime, req: IncomingMessage, principal: Principal) => EnvelopeContext['client'];
  /** False: validated and answered, nothing published (GA4's validation server). */
  readonly publish: boolean;
  /** The answer once published (or validated). */
  readonly reply: (
    rt: Runtime,
    req: IncomingMessage,
    res: ServerResponse,
    rows: CollectRows,
    ids: readonly (string | undefined)[],
  ) => void;
}

/** The translators the default paths need (`eventbus source add <name>`). */
export const GA4_TRANSLATOR = 'ga4-mp';
export const SNOWPLOW_TRANSLATOR = 'snowplow';

/**
 * GA4's senders post JSON, often unlabelled: `fetch` with a string body says text/plain, curl
 * says a form, some libraries say nothing. GA4 takes them all; so do these paths.
 */
const GA4_MEDIA = ['application/json', 'text/plain', 'application/x-www-form-urlencoded', ''] as const;
/** Snowplow's trackers label their POST `application/json; charset=UTF-8`. */
const SNOWPLOW_MEDIA = ['application/json', 'text/plain'] as const;
/** The schema Snowplow's trackers wrap a POST's events in (tracker protocol `payload_data`). */
const PAYLOAD_DATA = 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4';
/** A write key, as `key create` makes it (gateway/credentials.ts). */
const WRITE_KEY = /^ebk_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;
/** The transparent 1×1 GIF a tracking pixel is answered with (43 bytes). */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** Each path's methods; a preflight (OPTIONS) is answered before (gateway/cors.ts). */
const METHODS: Readonly<Record<Collector, string>> = {
  ga4: 'POST',
  'ga4-debug': 'POST',
  'snowplow-post': 'POST',
  'snowplow-pixel': 'GET',
};

/**
 * The call of a default path, or undefined when it was answered here (a method the path does
 * not serve: 405). A listed origin is told its credentialed requests may read their answers
 * (Snowplow's trackers fetch with `credentials: 'include'`; the gateway authenticates nothing by cookie).
 */
export function collectCall(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  collector: Collector,
  query: Readonly<URLSearchParams>,
): CollectCall | undefined {
  const method = req.method ?? 'GET';
  if (method !== METHODS[collector]) {
    refuseMethod(rt, req, res, `${METHODS[collector]}, OPTIONS`);
    return undefined;
  }
  const origin = req.headers.origin;
  if (origin && rt.origins.has(origin)) res.setHeader('access-control-allow-credentials', 'true');
  if (collector === 'ga4' || collector === 'ga4-debug') return ga4Call(collector === 'ga4', query);
  return snowplowCall(collector === 'snowplow-pixel', query);
}

/**
 * GA4's `/mp/collect?measurement_id=…&api_secret=…` (or `firebase_app_id`): the `api_secret` is
 * a project token, taken as its Bearer header would be (`translate:ga4-mp`, `translate:*` or
 * `admin`), and the request's only credential; without one, the usual credentials. The stream's
 * id is kept on every event as `measurement_id` (or `firebase_app_id`) in its event data. GA4
 * answers 2xx with no body: so does `/mp/collect` (204) once the events are published, their
 * refused ones kept in `invalid_events` as a Segment path's are; what GA4 would also have taken
 * without a word (a body that is not JSON) is refused here in the gateway's envelope, where the
 * studio's live events show it, since a sender written for GA4 ignores the answer either way.
 * `/debug/mp/collect` validates the same and answers GA4's validation messages.
 */
function ga4Call(publish: boolean, query: Readonly<URLSearchParams>): CollectCall {
  const stream: Record<string, string> = {};
  for (const name of ['measurement_id', 'firebase_app_id']) {
    const v = query.get(name);
    if (v) stream[name] = v.slice(0, 128);
  }
  return {
    translator: GA4_TRANSLATOR,
    missing: `translator ${GA4_TRANSLATOR} (/mp/collect needs it: eventbus source add ga4-mp)`,
    keys: false,
    media: GA4_MEDIA,
    credential: async (rt, req) => {
      const secrets = query.getAll('api_secret');
      if (secrets.length === 0) return { auth: await authenticate(req, query.getAll('key'), rt.authDeps) };
      // The one-credential rule: a second api_secret, a header or a ?key= beside it is refused.
      const notOne = oneCredential(req, [...query.getAll('key'), ...secrets.slice(1)], true);
      if (notOne) return { auth: notOne };
      // Re-read on demand, as every credential is (gateway/auth.ts, CredentialCache.stale).
      await rt.authDeps.credentials.stale?.();
      return { auth: await authenticateToken(secrets[0] as string, rt.authDeps) };
    },
    defaults: stream,
    client: (rt, req, principal) => sdkClient(rt, req, principal),
    publish,
    reply: publish ? ga4Reply : ga4Validation,
  };
}

/** `/mp/collect`'s answer, as GA4's: 204, no body. */
function ga4Reply(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) return;
  allowOrigin(rt, req, res);
  res.writeHead(204, { 'cache-control': 'no-store' });
  res.end();
}

/**
 * `/debug/mp/collect`'s answer, as GA4's validation server gives it ("Validate events",
 * developers.google.com/analytics/devguides/collection/protocol/ga4/validating-events): 200
 * `{"validationMessages": [{fieldPath, description, validationCode}]}`, empty when every event
 * would be taken. Our violations are named by the event of the body (`events[1].currency`: the
 * field of the event it would become) and coded VALUE_REQUIRED when a field is missing, else
 * VALUE_INVALID (NAME_INVALID for the event's name).
 */
function ga4Validation(rt: Runtime, req: IncomingMessage, res: ServerResponse, rows: CollectRows): void {
  const validationMessages = rows.violations.map((v) => ({
    fieldPath: v.field.replace(/^rows\[/, 'events['),
    description: v.description,
    validationCode: /\.event_name$/.test(v.field)
      ? 'NAME_INVALID'
      : /is required|required property/i.test(v.description)
        ? 'VALUE_REQUIRED'
        : 'VALUE_INVALID',
  }));
  send(rt, req, res, 200, { validationMessages });
}

/**
 * Snowplow's trackers (docs/senders.md, "Snowplow"): a tracker changed only in its collector host
 * adds no URL token, so it is known by a credential it can carry: a header it is configured with
 * (`customHeaders`: `Authorization: Bearer <token>` from a server, `X-Write-Key` from a page), a
 * pixel URL's `?key=`, or its app id (`aid`, the tracker's `appId`) set to a page's write key,
 * public as Segment's is: bound to its origins and event list, its money events unverified
 * without the key's allowance (gateway/sdk-paths.ts). A key in `aid` is kept on the events as
 * `key:<id>`, never the key. A pixel's request without an Origin (an `<img>`) is held to the
 * origin of its Referer.
 */
function snowplowCall(pixel: boolean, query: Readonly<URLSearchParams>): CollectCall {
  return {
    translator: SNOWPLOW_TRANSLATOR,
    missing: `translator ${SNOWPLOW_TRANSLATOR} (Snowplow's paths need it: eventbus source add snowplow)`,
    keys: true,
    media: SNOWPLOW_MEDIA,
    credential: (rt, req) => (pixel ? pixelCredential(rt, req, query) : postCredential(rt, req, query)),
    client: (rt, req, principal) => {
      const client = sdkClient(rt, req, principal);
      // SP-Anonymous: the tracker asks the collector to keep no address of the person.
      if (req.headers['sp-anonymous'] === undefined || !('ip' in client)) return client;
      const { ip: _ip, ...anonymous } = client;
      return anonymous;
    },
    publish: true,
    reply: pixel
      ? pixelReply
      : (rt, req, res, rows, ids) =>
          send(rt, req, res, 200, translateAnswer(rows.order, ids as readonly string[], rows.violations)),
  };
}

/** A tracker's POST: its header credential, else the write key its events carry as `aid`. */
async function postCredential(
  rt: Runtime,
  req: IncomingMessage,
  query: Readonly<URLSearchParams>,
): Promise<CollectCredential> {
  // Read before the credential is known (an app id may be it): what a signed body costs, a
  // bounded read and a parse.
  const read = await readRawBody(req, rt.limits, rt.bodyTimeoutMs, SNOWPLOW_MEDIA, TRANSLATOR_CHARSETS);
  if (!read.ok) return { error: read.error };
  let payload: unknown;
  try {
    payload = JSON.parse(read.value.bytes.toString('utf8'));
  } catch {
    // Not JSON: no app id to read; the translator says what is wrong once a credential is.
    return { auth: await authenticate(req, query.getAll('key'), rt.authDeps), body: read.value };
  }
  const events = isObject(payload) && Array.isArray(payload['data']) ? payload['data'] : [payload];
  const keys = new Set(events.flatMap((e) => (isObject(e) && isKey(e['aid']) ? [e['aid']] : [])));
  for (const e of events) if (isObject(e) && isKey(e['aid'])) e['aid'] = shownKey(e['aid']);
  const body = keys.size === 0 ? read.value : jsonBody(payload);
  // A key in aid beside a header, or two keys, are two credentials: refused as any second
  // credential is (gateway/auth.ts, the one-credential rule).
  return { auth: await authenticate(req, [...query.getAll('key'), ...keys], rt.authDeps), body };
}

/**
 * The pixel, `GET /i?e=pv&…`: its query is one event of the tracker protocol, published as a POST's
 * would be. The JavaScript tracker's GETs carry their event id (`eid`); a hand-written pixel
 * (an e-mail's, Snowplow's pixel tracker) carries none and gets a new one per request, so two
 * opens are two events.
 */
async function pixelCredential(
  rt: Runtime,
  req: IncomingMessage,
  query: Readonly<URLSearchParams>,
): Promise<CollectCredential> {
  const event: Record<string, string> = {};
  for (const [name, value] of query) if (name !== 'key' && !Object.hasOwn(event, name)) event[name] = value;
  if (!event['eid']) event['eid'] = rt.deps.newId();
  const keys = query.getAll('key');
  const aid = event['aid'];
  if (isKey(aid)) {
    keys.push(aid);
    event['aid'] = shownKey(aid);
  }
  // An <img> sends no Origin; its Referer names the page (its origin at least, by default policy).
  if (req.headers.origin === undefined) {
    const page = originOf(req.headers.referer);
    if (page) req.headers.origin = page;
  }
  const body = jsonBody({ schema: PAYLOAD_DATA, data: [event] });
  return { auth: await authenticate(req, keys, rt.authDeps), body };
}

/** The pixel's answer: the 1×1 GIF, never cached (each view is a request). */
function pixelReply(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  if (res.headersSent) return;
  allowOrigin(rt, req, res);
  res.writeHead(200, {
    'content-type': 'image/gif',
    'content-length': PIXEL.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  res.end(PIXEL);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isKey = (v: unknown): v is string => typeof v === 'string' && v.startsWith(KEY_PREFIX);

/** A key as an event may show it: its public id (`key:<id>`), never the secret. */
function shownKey(key: string): string {
  const m = WRITE_KEY.exec(key);
  return m ? `key:${m[1]}` : 'key:(malformed)';
}

/** A JSON body built here (the pixel's query, a POST with its keys taken out). */
function jsonBody(value: unknown): RawBody {
  const bytes = Buffer.from(JSON.stringify(value));
  return { bytes, received: bytes, media: 'application/json', charset: 'utf-8' };
}

/** The origin of a Referer, or undefined. */
function originOf(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    const u = new URL(referer);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}
