/**
 * The egress gate (docs/security.md, "Egress"): the one way a request to a third party leaves
 * this service — forward's drivers, forward-catalog's Segment actions, syncs, rule actions,
 * platform erasures and diagnostics, connections. It applies core/egress/policy.ts:
 *
 * - the URL: https only, no IP literal or well-known name that points inside, unless its origin
 *   is on the configured allow-list (locally, the supervisor's stand-ins);
 * - the address: a name is resolved here (the injected resolver; node's dns by default), every
 *   address it resolves to is checked, and the connection is pinned to the checked one through a
 *   custom `lookup`, so a second answer of DNS (rebinding) is never used;
 * - the headers: no Host, hop-by-hop header, CR/LF or character beyond Latin-1; on a redirect to
 *   another origin every header but those describing the body or the client is dropped;
 * - the destination's `allowed_hosts` (when the request carries them): checked at every hop;
 * - redirects: never followed by the transport; the gate follows at most `maxRedirects` (0 for
 *   forward: a signed body goes to the URL it was signed for), each hop checked as the first.
 *
 * A refusal is an answer of kind `refused` with the reason `egress refused: <why>`, which the
 * drivers classify as `rejected` (core/platforms/responses.ts), and a log line. Nothing is sent.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import {
  type AllowList,
  CROSS_ORIGIN_HEADERS,
  checkTarget,
  EGRESS_REFUSED,
  EGRESS_REFUSED_CODE,
  type EgressTarget,
  hostAllowed,
  refusedAddress,
  refusedHeaders,
} from '../core/egress/policy.ts';
import type { InboundResponse } from '../core/platforms/driver.ts';
import {
  createTransport,
  type HttpSenderOptions,
  type PinnedAddress,
  type Target,
  type TransportRequest,
  targetOf,
} from './http-sender.ts';

/** Resolves a host name to every address it has (node's `dns.lookup` with `all`, by default). */
export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

/** A request through the gate: any method (Segment's actions use GET, PUT, PATCH), the body as text. */
export interface EgressRequest extends TransportRequest {
  readonly url: string;
  /**
   * The destination's `allowed_hosts`, when it has them: every hop, the first and each redirect,
   * must go to one of them (`name` or `name:port`), or it is refused.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Received by the gate's capturing stand-in, when it has one (option `capture`), once judged:
   * a catalogue destination without a base_url, whose requests never reach the vendor locally.
   */
  readonly capture?: boolean;
}

export type EgressSender = (request: EgressRequest, timeoutMs: number) => Promise<InboundResponse>;

export interface EgressOptions extends HttpSenderOptions {
  /** Origins sent to as they are (http included, address unchecked): configuration, never a guess. */
  readonly allow: AllowList;
  /** Who sends (the log line's `component`). */
  readonly component: string;
  /** Name resolution (tests inject one; nothing leaves the machine to resolve). */
  readonly resolve?: Resolver;
  /** Redirects followed, each checked as the first request (default 0: a 3xx is the answer). */
  readonly maxRedirects?: number;
  /** Where a refusal is told (default: a JSON log line on stdout). */
  readonly log?: (line: Readonly<Record<string, unknown>>) => void;
  /**
   * Locally only (the supervisor's capturing stand-in, docs/local.md): a URL such as
   * `http://127.0.0.1:8099/capture`. A request marked `capture` whose target is not on the allow-list is judged
   * exactly as in the cloud (scheme, internal names and addresses, allowed_hosts, headers,
   * redirects), then received by the stand-in under `<capture>/<target host><path>` instead of
   * the vendor: the stand-in records the target, the gate never judges the stand-in's URL. The
   * target's name is not resolved (vendors' names need not resolve on a laptop).
   */
  readonly capture?: string;
}

/** How long a resolved name's checked address is used before it is resolved and checked again. */
const RESOLVED_TTL_MS = 30_000;
const RESOLVED_MAX = 1000;

const defaultResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The gate: a sender that sends only what the egress policy allows. */
export function createEgressSender(options: EgressOptions): EgressSender {
  const transport = createTransport(options);
  const resolve = options.resolve ?? defaultResolver;
  const maxRedirects = options.maxRedirects ?? 0;
  const log = options.log ?? ((line: Readonly<Record<string, unknown>>) => console.log(JSON.stringify(line)));
  const resolved = new Map<string, { until: number; pinned: PinnedAddress | string }>();
  // Each URL checked and parsed once (a destination's URL is the same for every delivery); bounded.
  const checked = new Map<string, { target: EgressTarget; http: Target } | { refused: string }>();
  const check = (url: string) => {
    let hit = checked.get(url);
    if (hit === undefined) {
      const target = checkTarget(url, options.allow);
      hit = 'refused' in target ? target : { target, http: targetOf(target.url) };
      if (checked.size >= RESOLVED_MAX) checked.clear();
      checked.set(url, hit);
    }
    return hit;
  };

  /** The checked address of a name: pinned, or why not; cached for a short while either way. */
  const addressOf = async (host: string): Promise<PinnedAddress | string> => {
    const now = Date.now();
    const hit = resolved.get(host);
    if (hit && hit.until > now) return hit.pinned;
    let pinned: PinnedAddress | string;
    try {
      const all = await resolve(host);
      const first = all[0];
      // Every answer is checked: a name that also points inside is refused, not half-trusted.
      const bad = all.map((a) => refusedAddress(a.address)).find((why) => why !== undefined);
      if (first === undefined) pinned = `${host} resolves to no address`;
      else if (bad) pinned = `${host} resolves to ${bad}`;
      else pinned = { address: first.address, family: first.family === 6 ? 6 : 4 };
    } catch (err) {
      // Not a refusal: the name may resolve later. Not cached.
      throw new Error(`cannot resolve ${host}: ${(err as Error).message}`);
    }
    if (resolved.size >= RESOLVED_MAX) resolved.clear();
    resolved.set(host, { until: now + RESOLVED_TTL_MS, pinned });
    return pinned;
  };

  const refuse = (request: EgressRequest, why: string): InboundResponse => {
    const reason = `${EGRESS_REFUSED}: ${why}`;
    log({ severity: 'WARNING', message: reason, component: options.component, url: request.redactedUrl });
    return { kind: 'refused', reason };
  };

  const hop = async (
    request: EgressRequest,
    timeoutMs: number,
    deadline: number,
    left: number,
  ): Promise<InboundResponse> => {
    const known = check(request.url);
    if ('refused' in known) return refuse(request, known.refused);
    const { target } = known;
    if (request.allowedHosts && !hostAllowed(request.url, request.allowedHosts))
      return refuse(request, `${target.url.host} is not one of the destination's allowed_hosts`);
    const badHeader = refusedHeaders(request.headers, target.url);
    if (badHeader) return refuse(request, badHeader);
    let pinned: PinnedAddress | undefined;
    let to = known.http;
    if (!target.allowListed && request.capture && options.capture !== undefined)
      to = capturedAt(options.capture, target.url);
    else if (!target.allowListed && !target.literal) {
      let address: PinnedAddress | string;
      try {
        address = await withinDeadline(addressOf(target.host), deadline, target.host);
      } catch (err) {
        return { kind: 'network_error', message: `${(err as Error).message} (${request.redactedUrl})` };
      }
      if (typeof address === 'string') return refuse(request, address);
      pinned = address;
    }
    const remaining = Math.max(0, deadline - Date.now());
    const answer = await transport(to, request, remaining, pinned);
    if (answer.kind !== 'response' || !REDIRECTS.has(answer.status) || maxRedirects === 0) return answer;
    const location = answer.headers['location'];
    if (location === undefined) return answer;
    if (left === 0) return refuse(request, `more than ${maxRedirects} redirects`);
    return hop(redirected(request, target, answer.status, location), timeoutMs, deadline, left - 1);
  };

  return (request, timeoutMs) => hop(request, timeoutMs, Date.now() + timeoutMs, maxRedirects);
}

/** Where the capturing stand-in receives a judged target: `<capture>/<host[:port]><path><query>`. */
function capturedAt(capture: string, target: URL): Target {
  return targetOf(new URL(`${capture.replace(/\/+$/, '')}/${target.host}${target.pathname}${target.search}`));
}

/** A name's resolution, bounded by the call's own deadline: a slow resolver is a timeout, not a hang. */
function withinDeadline<T>(p: Promise<T>, deadline: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timeout resolving ${host}`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The next hop's request: 303 (and a POST's 301/302) becomes a GET. Toward another origin it
 * keeps only the headers that describe the body or the client (CROSS_ORIGIN_HEADERS): whatever a
 * destination's secrets or settings put in a header (a token, an `x-api-key`) stays with the
 * origin it was meant for. The destination's `allowed_hosts` go with it, checked at that hop.
 */
function redirected(
  request: EgressRequest,
  from: EgressTarget,
  status: number,
  location: string,
): EgressRequest {
  let next: URL;
  try {
    next = new URL(location, from.url);
  } catch {
    next = new URL('invalid:');
  }
  const toGet = status === 303 || ((status === 301 || status === 302) && request.method === 'POST');
  const sameOrigin = next.origin === from.url.origin;
  const headers: Record<string, string> = {};
  for (const name in request.headers) {
    const lower = name.toLowerCase();
    if (!sameOrigin && !CROSS_ORIGIN_HEADERS.has(lower)) continue;
    if (toGet && (lower === 'content-type' || lower === 'content-encoding')) continue;
    headers[name] = request.headers[name] as string;
  }
  return {
    method: toGet ? 'GET' : request.method,
    url: next.href,
    // The hop's query string may hold a key: the log and the ledger see its origin and path only.
    redactedUrl:
      next.protocol === 'http:' || next.protocol === 'https:'
        ? `${next.origin}${next.pathname}`
        : next.protocol,
    headers,
    body: toGet ? '' : request.body,
    ...(request.allowedHosts ? { allowedHosts: request.allowedHosts } : {}),
    ...(request.capture ? { capture: true } : {}),
  };
}

/** What a caller of egressFetch may add to a fetch's init: the destination's policy for the gate. */
export interface EgressInit extends RequestInit {
  readonly egress?: { readonly allowedHosts?: readonly string[]; readonly capture?: boolean };
}

/**
 * The gate as the `fetch` Segment's actions are given (adapters/segment-actions/run.ts): the
 * request goes through `send`, an answer comes back as a web Response, a refusal as an error
 * with the code EGRESS_REFUSED_CODE (an outcome `rejected`, outcome.ts). `timeoutMs` bounds each
 * call; the caller's signal still aborts it. `init.egress` carries the destination's
 * `allowed_hosts` to every hop.
 */
export function egressFetch(send: EgressSender, timeoutMs: number): typeof fetch {
  return async (input, init?: EgressInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body =
      typeof init?.body === 'string' ? init.body : init?.body ? await new Response(init.body).text() : '';
    init?.signal?.throwIfAborted();
    const parsed = URL.canParse(url) ? new URL(url) : undefined;
    const sent = send(
      {
        method: (init?.method ?? 'GET').toUpperCase(),
        url,
        redactedUrl: parsed ? `${parsed.origin}${parsed.pathname}` : '(invalid URL)',
        headers,
        body,
        ...(init?.egress?.allowedHosts ? { allowedHosts: init.egress.allowedHosts } : {}),
        ...(init?.egress?.capture ? { capture: true } : {}),
      },
      timeoutMs,
    );
    const answer = await (init?.signal ? abortable(sent, init.signal) : sent);
    if (answer.kind === 'refused')
      throw Object.assign(new Error(answer.reason), { code: EGRESS_REFUSED_CODE });
    if (answer.kind === 'network_error') throw new Error(answer.message);
    const empty = answer.status === 204 || answer.status === 304 || answer.body === '';
    return new Response(empty ? null : answer.body, { status: answer.status, headers: answer.headers });
  };
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
