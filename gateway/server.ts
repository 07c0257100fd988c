/**
 * The ingest gateway: a lean node:http server (the functions framework costs ~85% of the
 * throughput and answers malformed JSON with HTML, docs/google-wire.md §6). It composes the steps of a
 * request, each in its own module: routing (routing.ts), authentication and rate limits
 * (auth.ts; a translator's own senders' proofs: translator-auth.ts), the body read with hard caps
 * (body.ts), the two request forms (envelope.ts), then one Publish call per request. Google's
 * error envelope for every failure; everything it talks to is injected.
 *
 * The handlers are module functions over one `Runtime` (runtime.ts: what a gateway holds for
 * its life, and the answers every handler gives), so each step reads as a named function
 * and the publish and translate handlers share their tail (`publishEvents`: envelope context,
 * registry check, publish, `UNAVAILABLE`) once. Failures are returned `Step` values (step.ts)
 * turned into answers here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { PublishUnavailableError } from '../adapters/publisher.ts';
import { SpanKind } from '../adapters/tracing.ts';
import type { DefinedEvents, Deprecated } from '../core/definitions/defined-events.ts';
import { type ApiError, apiError } from '../core/errors.ts';
import { andThen, isPending, type MaybePromise } from '../core/maybe-async.ts';
import type { Step } from '../core/step.ts';
import { lookupEvent } from '../schemas/catalogue.ts';
import { authenticate, type Principal } from './auth.ts';
import { type RawBody, readRawBody, readRequest } from './body.ts';
import { type CollectCall, collectCall } from './collect-paths.ts';
import { preflight } from './cors.ts';
import { canPublish } from './credentials.ts';
import {
  deprecationHeaders,
  type EnvelopeContext,
  type Parsed,
  parsePublishForm,
  parseTopicsForm,
  type TagForm,
} from './envelope.ts';
import { cookieRequestOf, gaClientIds, idCookies } from './id-cookies.ts';
import {
  route,
  type SdkPath,
  SEGMENT_TRANSLATOR,
  type SegmentCall,
  splitUrl,
  type Target,
} from './routing.ts';
import {
  admit,
  clientOf,
  definitionsNow,
  forwardedHost,
  type GatewayConfig,
  type GatewayDeps,
  note,
  protoOf,
  type Runtime,
  refused,
  refuseMethod,
  runtimeOf,
  send,
  sendError,
  shownPath,
  showUrl,
  sizeOf,
  translatorClient,
  translatorNow,
  withoutOriginPath,
} from './runtime.ts';
import { queryKeys, readJitsuKey, sdkClient, sdkMetrics, sdkSettings, withMoneyRule } from './sdk-paths.ts';
import { serveTag } from './tag-route.ts';
import { endStep, noteRequest, receiveSpan, requestContext, startStep } from './tracing.ts';
import {
  invalidCalls,
  publishChunks,
  SEGMENT_MEDIA,
  signedMedia,
  TRANSLATOR_CHARSETS,
  TRANSLATOR_MEDIA,
  translateAnswer,
  translateRows,
} from './translate.ts';
import { authenticateInUrl, mayTranslate, signedBody, urlCredential, verifyUrl } from './translator-auth.ts';

export type { GatewayConfig, GatewayDeps } from './runtime.ts';

/** The query of a URL without one: shared, read only (nothing here adds parameters). */
const NO_QUERY: Readonly<URLSearchParams> = new URLSearchParams();

/** Creates the gateway's http.Server (not listening yet). */
export function createGateway(config: GatewayConfig, deps: GatewayDeps): Server {
  const rt = runtimeOf(config, deps);
  const server = createServer(
    { requestTimeout: 60_000, headersTimeout: 20_000, keepAliveTimeout: 65_000, requireHostHeader: false },
    (req, res) => {
      const bug = (err: unknown) => {
        rt.log({ severity: 'ERROR', message: `gateway bug: ${(err as Error).stack ?? String(err)}` });
        sendError(rt, req, res, apiError('INTERNAL'), true);
      };
      // The request's span, kept on the request (not made active): its context goes on every
      // message (contextOf), its steps are made under it (gateway/tracing.ts).
      receiveSpan(req, res);
      try {
        const handled = handle(rt, req, res);
        if (isPending(handled)) handled.catch(bug);
      } catch (err) {
        bug(err);
      }
    },
  );
  // A malformed request line or headers: answer with our envelope instead of node's bare 400.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const e = apiError(err.code === 'HPE_HEADER_OVERFLOW' ? 'REQUEST_TOO_LARGE' : 'MALFORMED_REQUEST', {
      max: 16384,
    });
    const text = JSON.stringify(e.body);
    socket.end(
      `HTTP/1.1 ${e.http} ${e.http === 413 ? 'Payload Too Large' : 'Bad Request'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}

/**
 * Every request: its URL redacted for what is shown of it (before anything routes, so every
 * path, routed or not, is), routing, the answers that need no credential, then publish or
 * translate.
 */
function handle(rt: Runtime, req: IncomingMessage, res: ServerResponse): MaybePromise<void> {
  showUrl(req);
  const { path, query: queryText } = splitUrl(withoutOriginPath(rt, req.url ?? '/'));
  const method = req.method ?? 'GET';
  const r = route(path, rt.config.project, rt.topics);
  noteRequest(req, 'eventbus.route', r.kind);
  // Every path's preflight, an unknown one's too: the request that follows then gets its real
  // answer (a 404 with CORS headers) instead of a CORS error hiding it (gateway/cors.ts).
  if (method === 'OPTIONS') return preflight(rt, req, res, r.kind === 'collect');

  if (r.kind === 'tag') return serveTag(rt, req, res, method, queryText, r.part);
  if (r.kind === 'health' || r.kind === 'openapi') {
    if (method !== 'GET' && method !== 'HEAD') {
      return sendError(rt, req, res, apiError('METHOD_NOT_ALLOWED', { method, path: shownPath(req) }), true);
    }
    if (r.kind === 'health') return send(rt, req, res, 200, { status: 'ok' });
    if (!rt.openapiBody) return sendError(rt, req, res, apiError('NOT_FOUND', { resource: shownPath(req) }));
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'public, max-age=300',
    });
    res.end(rt.openapiBody);
    return;
  }
  if (r.kind === 'not_found') {
    return sendError(rt, req, res, apiError('NOT_FOUND', { resource: shownPath(req) }), true);
  }
  if (r.kind === 'sdk_settings') return sdkSettings(rt, req, res, r.sdk, path);
  // Most publishes carry no query: no parameters object to build for them.
  const query = queryText === '' ? NO_QUERY : new URLSearchParams(queryText);
  if (r.kind === 'collect') {
    // GA4's and Snowplow's default paths: a translator's request, as those senders send it.
    const call = collectCall(rt, req, res, r.collector, query);
    return call && handleTranslate(rt, req, res, call.translator, undefined, query, undefined, call);
  }
  if ((method === 'GET' || method === 'HEAD') && r.kind === 'translate') {
    const inUrl = urlCredential(r.pathCredential, query);
    if (inUrl) return verifyUrl(rt, req, res, r.translator, inUrl, r.pathCredential !== undefined, query);
  }
  if (method !== 'POST') {
    return refuseMethod(rt, req, res, 'POST, OPTIONS');
  }
  if (r.kind === 'translate') return handleTranslate(rt, req, res, r.translator, r.pathCredential, query);
  if (r.kind === 'sdk_metrics') return sdkMetrics(rt, req, res);
  if (r.kind === 'segment') {
    if (r.sdk === 'jitsu') readJitsuKey(req);
    return handleTranslate(rt, req, res, SEGMENT_TRANSLATOR, undefined, query, r);
  }
  return handlePublish(rt, req, res, r.form, r.target, query);
}

/** `POST /v1/topics/{topic}` and `:publish`: credential, rate limit, body, then the shared tail. */
function handlePublish(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  form: 'topics' | 'publish',
  target: Target,
  query: Readonly<URLSearchParams>,
): MaybePromise<void> {
  const authStep = startStep(req, 'gateway.auth');
  return andThen(authenticate(req, query.getAll('key'), rt.authDeps), (auth) => {
    endStep(req, authStep, auth.ok ? undefined : { refused: auth.error.code });
    if (!auth.ok) {
      refused(rt, req, auth.error, auth.credential, { size: sizeOf(req) });
      return sendError(rt, req, res, auth.error, true);
    }
    const principal = auth.principal;
    const who = `${principal.kind}:${principal.id}`;
    note(rt, req, { credential: who });
    if (!admit(rt, req, res, principal, who)) return;
    // Only a page's write key is the person's browser: its address fills (and wins over) the
    // event's device.ip. Tokens and Google identities are servers that carry only what they
    // send, their users' addresses among it (docs/gateway.md, "Who sent an event").
    // A write key's money events without its allowance are marked unverified (sdk-paths.ts).
    const observed = withMoneyRule(clientOf(rt, req, principal), principal);
    // A cookieless page (the tag's data-cookieless): no cookie, a session key of the day instead.
    const cookieless = observed.sender === 'browser' && query.get('cookieless') === '1';
    const cookieRequest =
      observed.sender === 'browser'
        ? { ...cookieRequestOf(req, protoOf(rt, req), forwardedHost(rt, req)), cookieless }
        : undefined;
    // A page's `_ga` (else one derived from the anonymous id) as GA4's client id, where consent
    // lets it be stored.
    const gaClientId = cookieRequest && gaClientIds(rt.config.settings, cookieRequest);
    const client = cookieless
      ? {
          ...observed,
          sessionKey: rt.sessionKeys(
            rt.now(),
            observed.ip ?? '',
            observed.userAgent ?? '',
            req.headers.origin ?? '',
          ),
        }
      : gaClientId
        ? { ...observed, gaClientId }
        : observed;
    // The tag's form (`tag=1`, plain form only): traits split into `user`, refused events kept aside.
    // A write key's event list refuses, with tag=1, only the events outside it (TagForm).
    const tag: TagForm | undefined =
      form === 'topics' && query.get('tag') === '1'
        ? principal.kind === 'key' && principal.events
          ? { keyEvents: { id: principal.id, names: principal.events } }
          : {}
        : undefined;
    return andThen(readRequest(req, rt.limits, rt.bodyTimeoutMs), (body) => {
      if (!body.ok) return sendError(rt, req, res, body.error, true);
      return publishEvents(rt, req, res, {
        client,
        // A page's batch: its answer sets the ids it holds as cookies, as consent allows.
        cookies: cookieRequest
          ? (parsed: Parsed) => idCookies(rt.config.settings, cookieRequest, parsed.messages, rt.now())
          : undefined,
        build: (ctx) =>
          form === 'topics'
            ? parseTopicsForm(body.value, target.topic, target.eventName, ctx, tag)
            : parsePublishForm(body.value, target.topic, ctx),
        names: (parsed) => parsed.eventNames,
        refuse: (parsed) => {
          if (allowed(rt, principal, parsed)) return undefined;
          const e = apiError('PERMISSION_DENIED', {
            detail: `this credential may not publish ${[...new Set(parsed.eventNames)].join(', ')} to ${parsed.topic}`,
          });
          refused(rt, req, e, who, { size: sizeOf(req) });
          return e;
        },
        // The tag's refused events in the same Publish call: answered 200 only once all are durable.
        publish: (parsed) =>
          rt.deps.publisher.publish(
            parsed.topic,
            parsed.invalid ? [...parsed.messages, ...parsed.invalid] : parsed.messages,
          ),
        // One id per event of the request, in order; copies of an event_id share its message's id.
        // The tag's form: null for a refused event, and what was refused (as a translator answers).
        answer: (parsed, published) => {
          const messageIds = parsed.order.map((i) => (i < 0 ? null : published[i]));
          if (!parsed.violations) return { messageIds };
          const invalidRows = parsed.order.filter((i) => i < 0).length;
          return { messageIds, invalidRows, violations: parsed.violations.slice(0, 100) };
        },
        logged: (parsed) => ({ topic: parsed.topic }),
      });
    });
  });
}

/** What a handler gives the shared tail (publishEvents): how to build its messages, and answer. */
interface Publication<B extends { readonly deprecated?: Deprecated }> {
  /** The envelope's client: who sent the request, and a browser's device (gateway/runtime.ts, clientOf). */
  readonly client: EnvelopeContext['client'];
  /** The messages, built with the definitions at hand (called again once they are re-read). */
  readonly build: (ctx: EnvelopeContext) => Step<B>;
  /**
   * The event names the registry must know: a list known before the body is parsed (a
   * translator's event, checked before building), or those of what was built.
   */
  readonly names: readonly string[] | ((built: B) => readonly string[]);
  /** A refusal the built request earns before it is published (scopes, a reused idempotency key). */
  readonly refuse: (built: B) => ApiError | undefined;
  readonly publish: (built: B) => Promise<readonly (string | undefined)[]>;
  /** The 200 answer's body, from the message ids. */
  readonly answer: (built: B, ids: readonly (string | undefined)[]) => unknown;
  /** An answer of the handler's own in place of the JSON one (a sender's default path: collect-paths.ts). */
  readonly reply?: ((built: B, ids: readonly (string | undefined)[]) => void) | undefined;
  /** What a failed publish's log line names. */
  readonly logged: (built: B) => Record<string, string>;
  /** `Set-Cookie` values for the 200 answer (a page's batch: gateway/id-cookies.ts). */
  readonly cookies?: ((built: B) => readonly string[]) | undefined;
}

/**
 * The tail of every publishing request: the envelope context with the registry's definitions
 * (read again once when a custom name is unknown to the copy: it may have been defined a
 * moment ago), `REGISTRY_UNAVAILABLE` when custom events cannot be checked, the handler's own
 * refusal, then the Publish call, answered 200 only once Pub/Sub accepted it, or `UNAVAILABLE`.
 * Synchronous up to the Publish call when the definitions are in memory.
 */
function publishEvents<B extends { readonly deprecated?: Deprecated }>(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  p: Publication<B>,
): MaybePromise<void> {
  return andThen(definitionsNow(rt), (defined) => {
    if (!Array.isArray(p.names))
      return build(rt, req, res, p, defined, p.names as (built: B) => readonly string[]);
    const known = coverage(defined, p.names as readonly string[]);
    if (known === 'unavailable') return registryUnavailable(rt, req, res);
    if (known === 'ok') return build(rt, req, res, p, defined, undefined);
    // The translator's event defined a moment ago (applied with it, typically): read it now.
    return reread(rt).then((again) => build(rt, req, res, p, again ?? defined, undefined));
  });
}

/** The definitions read again now (at most once a second: adapters/definitions.ts). */
const reread = (rt: Runtime): Promise<DefinedEvents | undefined> =>
  rt.deps.definitions?.afresh?.() ?? Promise.resolve(undefined);

const registryUnavailable = (rt: Runtime, req: IncomingMessage, res: ServerResponse): void =>
  sendError(rt, req, res, apiError('REGISTRY_UNAVAILABLE', { retryAfter: 5 }));

/**
 * publishEvents, once the definitions are at hand: the messages built, the registry check on
 * their names (`names`: not yet checked), the handler's refusal, then the Publish call.
 */
function build<B extends { readonly deprecated?: Deprecated }>(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  p: Publication<B>,
  defined: DefinedEvents | null | undefined,
  names: ((built: B) => readonly string[]) | undefined,
): MaybePromise<void> {
  // Sec-GPC: 1 (Global Privacy Control) is carried to the events as consent.gpc (envelope.ts).
  const client = req.headers['sec-gpc'] === '1' ? { ...p.client, gpc: true } : p.client;
  const validate = startStep(req, 'gateway.validate');
  const built = p.build(contextOf(rt, req, client, defined));
  endStep(req, validate, built.ok ? undefined : { refused: built.error.code });
  if (!built.ok) return sendError(rt, req, res, built.error);
  const b = built.value;
  if (names) {
    const known = coverage(defined, names(b));
    // A custom name the copy does not know may have been defined a moment ago: the definitions
    // are read again (at most once a second) and the request built with them (checked then).
    if (known === 'stale')
      return reread(rt).then((again) => build(rt, req, res, p, again ?? defined, undefined));
    // No copy of the definitions: a custom event may be a defined one, so it is not accepted unchecked.
    if (known === 'unavailable') return registryUnavailable(rt, req, res);
  }
  const refusal = p.refuse(b);
  if (refusal) return sendError(rt, req, res, refusal);
  const publish = startStep(req, 'gateway.publish', SpanKind.PRODUCER);
  const failed = (err: unknown) => {
    endStep(req, publish, { error: (err as Error).name });
    const retryAfter = err instanceof PublishUnavailableError ? err.retryAfterSeconds : 2;
    rt.log({ severity: 'ERROR', message: `publish failed: ${(err as Error).message}`, ...p.logged(b) });
    sendError(rt, req, res, apiError('UNAVAILABLE', { retryAfter }));
  };
  let publishing: Promise<readonly (string | undefined)[]>;
  try {
    publishing = p.publish(b);
  } catch (err) {
    return failed(err);
  }
  return publishing.then((ids) => {
    endStep(req, publish, undefined, { 'messaging.batch.message_count': ids.length });
    try {
      const cookies = p.cookies?.(b);
      if (cookies && cookies.length > 0 && !res.headersSent) res.setHeader('set-cookie', cookies);
      if (p.reply) p.reply(b, ids);
      else send(rt, req, res, 200, p.answer(b, ids), deprecationHeaders(b.deprecated));
    } catch (err) {
      failed(err);
    }
  }, failed);
}

/**
 * Whether the definitions at hand can check these event names: yes; no copy of the registry
 * (`null`) while one is custom; or a copy that does not know a custom one (read it again).
 */
function coverage(
  defined: DefinedEvents | null | undefined,
  names: readonly string[],
): 'ok' | 'unavailable' | 'stale' {
  if (defined === undefined) return 'ok';
  if (defined === null) return names.some((n) => !lookupEvent(n)) ? 'unavailable' : 'ok';
  return names.some((n) => !lookupEvent(n) && !defined.current(n)) ? 'stale' : 'ok';
}

/** The envelope context of a request being parsed now. */
function contextOf(
  rt: Runtime,
  req: IncomingMessage,
  client: EnvelopeContext['client'],
  defined: DefinedEvents | null | undefined,
): EnvelopeContext {
  return {
    limits: rt.limits,
    options: rt.options,
    received: rt.now(),
    client,
    newId: rt.deps.newId,
    ...(defined ? { defined } : {}),
    trace: requestContext(req),
  };
}

/**
 * `POST /v1/translators/{name}[/{credential}]` (gateway/translate.ts, docs/senders.md). The
 * translator is read first, since it says how its senders prove themselves: a vendor's body
 * signature (checked on the bytes as received, before anything is parsed), a token scoped to
 * it alone in the URL, or the usual credentials.
 */
async function handleTranslate(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  name: string,
  pathCredential: string | undefined,
  query: Readonly<URLSearchParams>,
  /**
   * A call on an SDK's path (Segment's, RudderStack's, Jitsu's): the `segment` translator, with
   * their content types, credentials and answers.
   */
  sdk?: { readonly call: SegmentCall; readonly sdk: SdkPath },
  /** A sender's default path (GA4's, Snowplow's: collect-paths.ts): its credential, body and answer. */
  collect?: CollectCall,
): Promise<void> {
  const segment = sdk?.call;
  // A sender's library on its own path cannot add ?partial=true: both keep the refused aside.
  const library = segment !== undefined || collect !== undefined;
  note(rt, req, { translator: name });
  const entry = await translatorNow(rt, name);
  if (entry === null)
    return sendError(rt, req, res, apiError('REGISTRY_UNAVAILABLE', { retryAfter: 5 }), true);
  const refuse = (e: ApiError, credential: string | undefined, reason?: string) => {
    refused(rt, req, e, credential, {
      translator: name,
      size: sizeOf(req),
      ...(reason ? { reason } : {}),
    });
    return sendError(rt, req, res, e, true);
  };
  const format = entry ? TRANSLATOR_MEDIA[entry.spec.format.type] : undefined;
  // RudderStack's library labels its gzipped JSON application/x-www-form-urlencoded.
  const media =
    format && library && format === 'application/json'
      ? (collect?.media ?? SEGMENT_MEDIA)
      : format && [format];
  const signature = entry?.spec.auth?.signature;
  let body: RawBody | undefined;
  let principal: Principal;
  if (entry && signature && media) {
    const signed = await signedBody(rt, req, name, signature, signedMedia(signature, media));
    if (!signed.ok)
      return signed.refusal ? refuse(...signed.refusal) : sendError(rt, req, res, signed.error, true);
    principal = { kind: 'signature', id: name };
    body = signed.value;
  } else if (collect) {
    const got = await collect.credential(rt, req);
    if ('error' in got) return sendError(rt, req, res, got.error, true);
    if (!got.auth.ok) return refuse(got.auth.error, got.auth.credential);
    principal = got.auth.principal;
    body = got.body;
  } else {
    const inUrl = urlCredential(pathCredential, query);
    const auth = inUrl
      ? await authenticateInUrl(rt, req, entry, name, inUrl, query, pathCredential !== undefined)
      : await authenticate(req, queryKeys(sdk?.sdk, query), rt.authDeps);
    if (!auth.ok) return refuse(auth.error, auth.credential);
    principal = auth.principal;
  }
  note(rt, req, { credential: `${principal.kind}:${principal.id}` });
  if (!entry || !media)
    return sendError(
      rt,
      req,
      res,
      apiError('NOT_FOUND', {
        resource: segment
          ? `translator ${name} (Segment's paths need it: apply examples/translators/segment-rudderstack.yaml)`
          : (collect?.missing ?? `translator ${name}`),
      }),
      true,
    );
  if (!mayTranslate(principal, name, segment !== undefined || collect?.keys === true)) {
    const e = apiError('PERMISSION_DENIED', { detail: `this credential may not use translator ${name}` });
    return refuse(e, `${principal.kind}:${principal.id}`);
  }
  if (!admit(rt, req, res, principal, `${principal.kind}:${principal.id}`)) return;
  if (!body) {
    const read = await readRawBody(req, rt.limits, rt.bodyTimeoutMs, media, TRANSLATOR_CHARSETS);
    if (!read.ok) return sendError(rt, req, res, read.error, true);
    body = read.value;
  }
  const raw = body;
  const keyHeader = req.headers['idempotency-key'];
  // Unsigned, so a signed delivery's identity never hangs on it (translate.ts, translateRows).
  const key = signature ? undefined : Array.isArray(keyHeader) ? keyHeader[0] : keyHeader;
  return publishEvents(rt, req, res, {
    // A file's rows are other people's: the uploader's address and user agent are nobody's
    // device here (they would reach Meta as every row's client_ip_address). A browser SDK's
    // calls with a page's write key are the browser's (sdk-paths.ts, sdkClient).
    client: collect
      ? collect.client(rt, req, principal)
      : segment
        ? sdkClient(rt, req, principal)
        : translatorClient(principal),
    build: (ctx) =>
      translateRows(entry, library ? { ...raw, media: 'application/json', charset: undefined } : raw, ctx, {
        // A Segment library cannot add ?partial=true: one bad call must not refuse its batch.
        partial: library || query.get('partial') === 'true',
        idempotencyKey: key,
        headers: req.headers,
        ...(segment && segment !== 'batch' ? { defaults: { type: segment } } : {}),
        ...(collect?.defaults ? { defaults: collect.defaults } : {}),
        // A write key publishes its own events only, whatever the translator allows.
        keyEvents:
          principal.kind === 'key' && principal.events
            ? { id: principal.id, names: principal.events }
            : undefined,
      }),
    names: [entry.spec.event],
    refuse: () =>
      key !== undefined && !rt.idempotency.admit(name, key, raw.bytes, rt.now())
        ? apiError('IDEMPOTENCY_KEY_REUSED', { key: JSON.stringify(key.slice(0, 64)) })
        : undefined,
    // Segment's calls that could not become events are kept in invalid_events, not dropped.
    publish: (rows) =>
      collect?.publish === false
        ? Promise.resolve([])
        : publishChunks(rt.deps.publisher, 'events', [
            ...rows.messages,
            ...(library ? invalidCalls(entry, raw, rows.violations) : []),
          ]),
    answer: (rows, ids) => {
      const answer = translateAnswer(rows.order, ids as readonly string[], rows.violations);
      return segment ? { success: true, ...answer } : answer;
    },
    reply: collect && ((rows, ids) => collect.reply(rt, req, res, rows, ids)),
    logged: () => ({ translator: name }),
  });
}

function allowed(rt: Runtime, principal: Principal, p: Parsed): boolean {
  if (principal.kind === 'token') return canPublish(principal.scopes, p.topic, p.eventNames, rt.topics);
  if (principal.kind === 'key' && principal.events)
    return p.eventNames.every((n) => principal.events?.includes(n));
  return true; // listed Google principals (and keys without a list) may publish any event
}
