/**
 * What the browser SDKs need from the gateway besides their calls (docs/senders.md, "Browser
 * SDKs"): the settings each reads before it sends (Analytics.js's `/v1/projects/{key}/settings`,
 * RudderStack's `/sourceConfig`), answered so it posts back to this gateway; Analytics.js's own
 * telemetry (`/v1/m`), answered and dropped; the credential where an SDK puts it (RudderStack's
 * beacon: `?writeKey=`; Jitsu: X-Write-Key as `id:secret`); and who a call on these paths is from.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from './auth.ts';
import type { EnvelopeContext } from './envelope.ts';
import type { SdkPath } from './routing.ts';
import {
  clientOf,
  forwardedHost,
  originPathOf,
  protoOf,
  type Runtime,
  refuseMethod,
  send,
  translatorClient,
} from './runtime.ts';

/**
 * The settings answers change only with the gateway's address: browsers may keep them a while.
 * Built from the configured domain, any cache may; built from the request's Host header, only the
 * browser's own, per host: a shared cache must never hand one caller's Host to another (#75).
 */
const SETTINGS_CACHE = { 'cache-control': 'public, max-age=300' };
const SETTINGS_CACHE_PER_HOST = { 'cache-control': 'private, max-age=300', vary: 'Host' };

/**
 * `GET /v1/projects/{writeKey}/settings` (Analytics.js with `cdnURL` set to the gateway) and
 * `GET /sourceConfig/` (RudderStack with `configUrl` set to it): the least each SDK needs to load,
 * pointing its calls at this gateway. Nothing in them is secret (the write key is the page's own),
 * so no credential is checked: the calls that follow are.
 */
export function sdkSettings(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  sdk: 'segment' | 'rudderstack',
  path: string,
): void {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    refuseMethod(rt, req, res, 'GET, HEAD, OPTIONS');
    return;
  }
  // Under gateway.origin_path the SDK sends to the site's own origin and path, as it loaded them.
  const prefix = originPathOf(rt, req);
  const domain = prefix ? undefined : rt.config.settings.gateway?.domain;
  const host = domain ?? `${(prefix && forwardedHost(rt, req)) || req.headers.host || ''}${prefix ?? ''}`;
  const cache = domain ? SETTINGS_CACHE : SETTINGS_CACHE_PER_HOST;
  if (sdk === 'rudderstack') {
    send(
      rt,
      req,
      res,
      200,
      {
        isHosted: false,
        source: {
          id: 'eventbus',
          name: 'eventbus',
          workspaceId: 'eventbus',
          enabled: true,
          // Its own error and metrics reports would go to RudderStack's servers: off.
          config: { statsCollection: { errors: { enabled: false }, metrics: { enabled: false } } },
          destinations: [],
        },
      },
      cache,
    );
    return;
  }
  const key = decodeURIComponent(path.split('/')[3] ?? '');
  const apiHost = `${host}/v1`;
  send(
    rt,
    req,
    res,
    200,
    {
      integrations: { 'Segment.io': { apiKey: key, apiHost, protocol: protoOf(rt, req) } },
      plan: { track: { __default: { enabled: true, integrations: {} } }, identify: {}, group: {} },
      // Its telemetry is never sampled; were it, it would come here (`/v1/m`), not to Segment.
      metrics: { sampleRate: 0, host: apiHost },
      enabledMiddleware: {},
      middlewareSettings: {},
      remotePlugins: [],
    },
    cache,
  );
}

/** `POST /v1/m`: Analytics.js's telemetry about itself, nothing of the site's; answered, not read. */
export function sdkMetrics(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
  send(rt, req, res, 200, { success: true }, { connection: 'close' });
}

/**
 * The write keys a path carries in its query: `?key=`, and on RudderStack's beacon `?writeKey=`
 * (a beacon cannot set a header). Each counts one credential (one credential per request).
 */
export function queryKeys(sdk: SdkPath | undefined, query: Readonly<URLSearchParams>): string[] {
  const keys = query.getAll('key');
  return sdk === 'beacon' ? [...keys, ...query.getAll('writeKey')] : keys;
}

/** A write key as Jitsu takes it: `ebk_<id>:<secret>` (Jitsu refuses a key without a colon). */
const JITSU_KEY = /^(ebk_[0-9a-f]{12}):([A-Za-z0-9_-]{1,128})$/;

/**
 * Jitsu's `X-Write-Key`, read as the write key it is: Jitsu's SDK refuses a write key that is not
 * `id:secret`, so a page gives it ours with a colon after the id (`ebk_<id>:<secret>`, the same
 * characters; docs/senders.md). The header is rewritten in place, before authentication reads it.
 */
export function readJitsuKey(req: IncomingMessage): void {
  const v = req.headers['x-write-key'];
  if (typeof v !== 'string') return;
  const m = JITSU_KEY.exec(v);
  if (m) req.headers['x-write-key'] = `${m[1]}_${m[2]}`;
}

/**
 * Who a call on an SDK path is from: a write key is a browser when its request names an Origin
 * the key lists, and a server-usable key without one a server (the rule of gateway/runtime.ts,
 * clientOf: the request's address, user agent and client hints only for a browser); a token is a
 * server library's, whose calls are the vendor's as on any translator. A key's money events
 * without its allowance are marked unverified (core/decision/unverified.ts).
 */
export function sdkClient(
  rt: Runtime,
  req: IncomingMessage,
  principal: Principal,
): EnvelopeContext['client'] {
  if (principal.kind !== 'key') return translatorClient(principal);
  return withMoneyRule(clientOf(rt, req, principal), principal);
}

/** A write key's client with the money rule: its money events unverified without the allowance. */
export function withMoneyRule(
  client: EnvelopeContext['client'],
  principal: Principal,
): EnvelopeContext['client'] {
  return principal.kind === 'key' && !principal.money ? { ...client, unverifiedMoney: true } : client;
}
