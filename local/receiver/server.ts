/**
 * The local destination receiver (port 8099 under `npm start`): accepts webhook POSTs,
 * verifies their signatures, and shows on one auto-refreshing page what each example
 * destination received, so a newcomer sees an event arrive seconds after the curl.
 * Platform receivers (Meta, GA4, TikTok loopbacks) are mounted under their prefix when given.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature, WEBHOOK_HEADERS } from '../../core/platforms/webhook/driver.ts';
import { webhookFormat } from '../../core/platforms/webhook/formats.ts';
import {
  Enforcement,
  type IdentityListeners,
  type IdentityPort,
  listenAsIdentities,
} from '../../emulators/common/iam-enforce.ts';
import type { Destination } from '../../schemas/settings.ts';
import { handleMetadataToken } from './metadata.ts';
import { createMetricStore, type MetricStore } from './metrics.ts';
import { RECEIVER_PAGE } from './page.ts';
import { readBody } from './read-body.ts';
import { traceGate } from './trace-access.ts';
import { createTraceStore, type TraceStore } from './traces.ts';

/** What the receiver saw of one request. */
export interface Received {
  readonly seq: number;
  readonly at: string;
  readonly destination: string;
  readonly path: string;
  readonly eventId?: string;
  readonly eventName?: string;
  /** true: signature checked and valid; false: checked and refused; null: destination signs nothing. */
  readonly verified: boolean | null;
  readonly status: number;
  readonly note?: string;
  /** The `traceparent` header a webhook call carried (the forward function's span). */
  readonly traceparent?: string;
  readonly body: unknown;
}

/** Query parameters that carry a platform credential (GA4's api_secret, Meta's access_token…). */
const SECRET_PARAMS = /([?&](?:api_secret|access_token)=)[^&#]*/gi;

/** A request path as the page shows it: credentials in its query replaced by REDACTED. */
export function redactSecrets(path: string): string {
  return path.replace(SECRET_PARAMS, '$1REDACTED');
}

/** A platform loopback to mount under `/<prefix>` (forwarded to its own server). */
export interface MountedPlatform {
  readonly prefix: string;
  readonly destination: string;
  readonly url: string;
}

export interface ReceiverOptions {
  readonly host?: string;
  readonly port?: number;
  /** Webhook destinations whose POSTs this receiver accepts (matched by `config.path`). */
  readonly webhooks: readonly Readonly<Destination>[];
  /** The signing key of a webhook destination, if it has one. */
  readonly signingKey: (destination: Readonly<Destination>) => Promise<string | undefined>;
  readonly platforms?: readonly MountedPlatform[];
  /** Tests and demos: the status to answer a verified webhook with (default 200). */
  readonly respond?: (received: Omit<Received, 'status' | 'seq'>) => number;
  /** How many requests are kept per destination. */
  readonly keep?: number;
  readonly now?: () => Date;
  /** The project spans posted over OTLP are written to (they name none). */
  readonly project?: string;
  /**
   * IAM over the traces (trace-access.ts), as the emulators' `--iam` and `--identity`: the access
   * file, and the member ports a workload's exporter or reader calls on. Absent: anyone may.
   */
  readonly iam?: { readonly file: string; readonly identities: readonly IdentityPort[] };
}

export interface Receiver {
  readonly url: string;
  readonly port: number;
  /** Member → the port its calls come in on (with `iam`). */
  readonly identityPorts: ReadonlyMap<string, number>;
  /** Everything received, oldest first. */
  received(destination?: string): Received[];
  /** The spans exported to this receiver (traces.ts). */
  readonly traces: TraceStore;
  /** The metric points exported to this receiver (metrics.ts). */
  readonly metrics: MetricStore;
  clear(): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Starts the receiver; resolves once it listens. */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const keep = options.keep ?? 200;
  const now = options.now ?? (() => new Date());
  const log: Received[] = [];
  let seq = 0;
  const record = (r: Omit<Received, 'seq'>): Received => {
    const full = { ...r, seq: ++seq };
    log.push(full);
    const mine = log.filter((x) => x.destination === r.destination);
    if (mine.length > keep) log.splice(log.indexOf(mine[0] as Received), 1);
    return full;
  };

  const byPath = new Map<string, Readonly<Destination>>();
  for (const d of options.webhooks) {
    const path = d.config?.['path'];
    byPath.set(typeof path === 'string' && path !== '' ? path : '/', d);
  }

  const handleWebhook = async (
    req: IncomingMessage,
    res: ServerResponse,
    d: Readonly<Destination>,
    raw: string,
  ) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // Kept as text: the page shows what arrived even when it is not JSON.
    }
    const ids = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const traceparent = header(req, 'traceparent');
    const base = {
      at: now().toISOString(),
      destination: d.id,
      path,
      ...(traceparent ? { traceparent } : {}),
      ...(typeof ids['event_id'] === 'string' ? { eventId: ids['event_id'] } : {}),
      ...(typeof ids['event_name'] === 'string' ? { eventName: ids['event_name'] } : {}),
      body,
    };
    const key = await options.signingKey(d);
    let how: string | undefined;
    if (key !== undefined) {
      const check = await checkSignature(req, d, key, raw);
      if (!check.ok) {
        record({ ...base, verified: false, status: 401, note: check.reason });
        json(res, 401, { error: check.reason });
        return;
      }
      how = check.how;
    }
    const verified = key === undefined ? null : true;
    const status = options.respond?.({ ...base, verified }) ?? 200;
    record({ ...base, verified, status, ...(how ? { note: how } : {}) });
    json(res, status, status < 300 ? { ok: true } : { error: `scripted ${status}` });
  };

  /**
   * A webhook's signature, checked in its destination's format: Standard Webhooks (also on the
   * CloudEvents formats) with the `standardwebhooks` library as a receiver would, our `v2` with
   * the destination's own check. `how` says which, for the page.
   */
  const checkSignature = async (
    req: IncomingMessage,
    d: Readonly<Destination>,
    key: string,
    raw: string,
  ): Promise<{ ok: true; how: string } | { ok: false; reason: string }> => {
    const format = webhookFormat(d);
    if (format === 'eventbus-v2') {
      const check = verifyWebhookSignature({
        key,
        method: req.method ?? 'POST',
        // The URL the sender signed: this receiver's own address (no proxy on loopback) and the path.
        url: `${ownOrigin()}${req.url ?? '/'}`,
        body: raw,
        timestamp: header(req, WEBHOOK_HEADERS.timestamp),
        signature: header(req, WEBHOOK_HEADERS.signature),
        now: now(),
      });
      return check.ok ? { ok: true, how: 'eventbus-v2 signature verified' } : check;
    }
    const { Webhook } = await import('standardwebhooks');
    const headers: Record<string, string> = {};
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
      headers[name] = header(req, name) ?? '';
    try {
      new Webhook(key).verify(raw, headers);
      return { ok: true, how: `${format} verified with standardwebhooks (${headers['webhook-id']})` };
    } catch (err) {
      return { ok: false, reason: `${format ?? 'unknown format'}: ${(err as Error).message}` };
    }
  };

  const proxy = async (req: IncomingMessage, res: ServerResponse, p: MountedPlatform, raw: string) => {
    const rest = (req.url ?? '/').slice(p.prefix.length + 1) || '/';
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'host') headers[k] = v;
    // The address the sender called, for a stand-in that checks a signature over it (X's OAuth 1.0a).
    headers['x-forwarded-url'] = `${ownOrigin()}${(req.url ?? '/').split('?')[0]}`;
    let status = 502;
    let text = '';
    // A throttling stand-in's Retry-After reaches the forward function, as the platform's would.
    let retryAfter: string | null = null;
    try {
      const upstream = await fetch(`${p.url.replace(/\/$/, '')}${rest}`, {
        method: req.method ?? 'POST',
        headers,
        ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: raw }),
      });
      status = upstream.status;
      retryAfter = upstream.headers.get('retry-after');
      text = await upstream.text();
      retryAfter = upstream.headers.get('retry-after');
    } catch (err) {
      text = JSON.stringify({ error: (err as Error).message });
    }
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {}
    const traceparent = header(req, 'traceparent');
    // A HEAD carries no event (forward's eventless probe, core/delivery/probe.ts): answered, not logged.
    if (req.method !== 'HEAD')
      record({
        at: now().toISOString(),
        destination: p.destination,
        path: redactSecrets(rest),
        ...(traceparent ? { traceparent } : {}),
        ...platformEvent(body),
        verified: null,
        status,
        body,
      });
    res
      .writeHead(status, {
        'content-type': 'application/json',
        ...(retryAfter ? { 'retry-after': retryAfter } : {}),
      })
      .end(text);
  };

  let identities: IdentityListeners | undefined;
  const enforcement = options.iam ? new Enforcement(options.iam.file) : undefined;
  const project = options.project !== undefined ? { project: options.project } : {};
  const traces = createTraceStore({
    ...project,
    ...(enforcement ? { gate: traceGate(enforcement, () => identities) } : {}),
  });
  const metrics = createMetricStore({
    ...project,
    ...(enforcement ? { gate: traceGate(enforcement, () => identities, 'monitoring.googleapis.com') } : {}),
  });
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (req.method === 'GET' && path === '/health') return json(res, 200, { ok: true });
    // The local OTLP receiver: the functions' and the gateway's spans (traces.ts).
    if (traces.handle(req, res, path)) return;
    // And their delivery metrics (metrics.ts).
    if (metrics.handle(req, res, path)) return;
    // The functions' own account: the metadata server's token endpoint (metadata.ts).
    if (handleMetadataToken(req, res, path)) return;
    if (req.method === 'GET' && path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(RECEIVER_PAGE);
      return;
    }
    if (req.method === 'GET' && path === '/received.json') {
      const destinations = [
        ...options.webhooks.map((d) => d.id),
        ...(options.platforms ?? []).map((p) => p.destination),
      ];
      return json(res, 200, { destinations, received: log.slice().reverse() });
    }
    if (req.method === 'DELETE' && path === '/received') {
      log.length = 0;
      return json(res, 200, { ok: true });
    }
    // A CloudEvents webhook's handshake (core/platforms/webhook/handshake.ts): every origin allowed.
    if (req.method === 'OPTIONS' && byPath.has(path) && req.headers['webhook-request-origin']) {
      res.writeHead(200, { 'webhook-allowed-origin': '*', allow: 'POST' }).end();
      return;
    }
    readBody(req, MAX_BODY_BYTES)
      .then(async (raw) => {
        const platform = (options.platforms ?? []).find(
          (p) => path === `/${p.prefix}` || path.startsWith(`/${p.prefix}/`),
        );
        if (platform) return proxy(req, res, platform, raw);
        const hook = req.method === 'POST' ? byPath.get(path) : undefined;
        if (hook) return handleWebhook(req, res, hook, raw);
        return json(res, 404, { error: `nothing is mounted at ${req.method} ${path}` });
      })
      .catch((err: unknown) => {
        if (!res.headersSent) json(res, 413, { error: (err as Error).message });
      });
  });
  function ownOrigin(): string {
    return `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  }
  // Keep-alive connections from the forward function are reused; closing must not wait for them.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const bound = options.iam?.identities ?? [];
  if (bound.length > 0)
    identities = await listenAsIdentities(options.host ?? '127.0.0.1', bound, (s) =>
      server.emit('connection', s),
    ).catch(async (err: unknown) => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw err;
    });
  return {
    url: ownOrigin(),
    port,
    identityPorts: identities?.ports ?? new Map(),
    received: (destination) => log.filter((r) => destination === undefined || r.destination === destination),
    traces,
    metrics,
    clear: () => {
      log.length = 0;
    },
    close: async () => {
      await identities?.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * The event name and id a platform request carries, for the page: Meta `data[].event_name`
 * and `event_id`, TikTok `data[].event` and `event_id`, GA4 `events[].name` (GA4 has no id),
 * Google Ads `events[].transactionId` (it has no event names: each goes to a conversion action),
 * X `conversions[].event_id` (the X event) and `conversion_id`, LinkedIn `eventId` (one event,
 * or `elements[]`; no names either), Microsoft `data[].eventName` (or its `eventType`) and
 * `eventId`, Reddit `data.events[].type.tracking_type` and `metadata.conversion_id`. Several events in one request are listed comma-separated.
 */
export function platformEvent(body: unknown): { eventName?: string; eventId?: string } {
  if (body === null || typeof body !== 'object') return {};
  // X: each conversion names the X event it counts for; our id travels as its conversion_id.
  const conversions = (body as { conversions?: unknown }).conversions;
  if (Array.isArray(conversions)) return namesAndIds(conversions, 'event_id', 'conversion_id');
  const b = body as { data?: unknown; events?: unknown; elements?: unknown; conversion?: unknown };
  const nested = (b.data as { events?: unknown } | undefined)?.events;
  const list = (
    Array.isArray(b.data)
      ? b.data
      : Array.isArray(nested)
        ? nested
        : Array.isArray(b.events)
          ? b.events
          : Array.isArray(b.elements)
            ? b.elements
            : b.conversion !== undefined
              ? [b]
              : []
  ) as Record<string, unknown>[];
  const names = list
    .map(
      (e) =>
        e['event_name'] ??
        e['event'] ??
        e['name'] ??
        e['eventName'] ??
        e['eventType'] ??
        (e['type'] as Record<string, unknown> | undefined)?.['tracking_type'],
    )
    .filter((v) => typeof v === 'string');
  const ids = list
    .map(
      (e) =>
        e['event_id'] ??
        e['transactionId'] ??
        e['eventId'] ??
        (e['metadata'] as Record<string, unknown> | undefined)?.['conversion_id'],
    )
    .filter((v) => typeof v === 'string');
  return {
    ...(names.length > 0 ? { eventName: names.join(', ') } : {}),
    ...(ids.length > 0 ? { eventId: ids.join(', ') } : {}),
  };
}

/** The names and ids a list of platform events carries, comma-separated. */
function namesAndIds(
  list: readonly unknown[],
  name: string,
  id: string,
): { eventName?: string; eventId?: string } {
  const pick = (k: string) =>
    list
      .map((e) => (e !== null && typeof e === 'object' ? (e as Record<string, unknown>)[k] : undefined))
      .filter((v) => typeof v === 'string');
  const names = pick(name);
  const ids = pick(id);
  return {
    ...(names.length > 0 ? { eventName: names.join(', ') } : {}),
    ...(ids.length > 0 ? { eventId: ids.join(', ') } : {}),
  };
}
