/**
 * Ids the gateway sets in its answer to a page's batch (docs/browser.md, "Ids the server sets"):
 * the anonymous id the tag holds and the platforms' cookies their facts declare (Meta's `_fbp` and
 * `_fbc`, a `_ga`-compatible client id when GA4 is a destination), as `Set-Cookie` headers on the batch's own 200 — no request of their own.
 * Safari's ITP caps cookies a script writes at 7 days; one an HTTP answer sets from the site's own
 * address lives as long as it says, up to the browser's cap (Chrome's: 400 days).
 *
 * Consent decides first, through the one resolver (core/consent/resolve.ts) reading the batch's
 * last event as the decision layer reads a stored one: nothing is set unless storage (the
 * `analytics` purpose, TCF purpose 1 included) is granted, and a cookie needs its own purposes too
 * (Meta's: `ads`).
 * Every value re-affirms what the page holds (the event's `anonymous_id`, its `campaign.fbp` and
 * `fbc`, the request's `_ga` cookie); a new one is made only where the page has none.
 */
import { randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { OutgoingMessage } from '../adapters/publisher.ts';
import { resolvePurposes } from '../core/consent/resolve.ts';
import type { StoredEvent } from '../core/event.ts';
import { factsWith } from '../core/platforms/facts.ts';
import type { Settings } from '../schemas/settings.ts';

/** 400 days, the longest lifetime Chrome keeps (RFC 6265bis caps Max-Age there too). */
export const ID_COOKIE_SECONDS = 34_560_000;

/** What the cookies need of the request, read by the caller (gateway/runtime.ts). */
export interface CookieRequest {
  /** The host the browser sent the request to, without its port. */
  readonly host: string;
  /** Whether the browser reached the gateway over plain http on the same machine (local development). */
  readonly plainLoopback: boolean;
  /** The request's `Cookie` header. */
  readonly cookie: string | undefined;
}

/**
 * The registrable domain the ids are set on: `gateway.cookie_domain`, else the first-party
 * subdomain `gateway.domain` less its first label (`collect.shop.example` → `shop.example`);
 * undefined (host-only cookies) when neither is set.
 */
export function cookieDomainOf(settings: Readonly<Settings>): string | undefined {
  const g = settings.gateway;
  if (g?.cookie_domain) return g.cookie_domain;
  return g?.domain ? g.domain.slice(g.domain.indexOf('.') + 1) : undefined;
}

const IP_OR_ONE_LABEL = /^[\d.]+$|:|^[^.]*$/;

/**
 * The `Set-Cookie` values for a page's batch (none when storage is not granted). `messages`: the
 * batch's events as published (their data is the normalised event).
 */
export function idCookies(
  settings: Readonly<Settings>,
  request: CookieRequest,
  messages: readonly OutgoingMessage[],
  now: number,
): string[] {
  const last = messages[messages.length - 1];
  if (!last) return [];
  let event: StoredEvent;
  try {
    const parsed = JSON.parse(last.data.toString('utf8')) as StoredEvent;
    // The resolver reads a stored event, whose event_data is always an object.
    event =
      typeof parsed.event_data === 'object' && parsed.event_data ? parsed : { ...parsed, event_data: {} };
  } catch {
    return [];
  }
  const purposes = resolvePurposes(event, undefined, settings.producers?.honor_gpc ?? true);
  if (purposes.analytics.state !== 'granted') return [];
  // Sent before the page's GPP CMP was ready: its TCF section may yet refuse purpose 1, so
  // storage waits, as the tag's own does (a TCF CMP's silence already reads as refused).
  if ((event.consent as Readonly<Record<string, unknown>> | undefined)?.['gpp_pending'] === true) return [];

  const configured = cookieDomainOf(settings);
  const host = request.host;
  const domain =
    configured && (host === configured || host.endsWith(`.${configured}`)) ? configured : undefined;
  const attributes =
    `; Path=/; Max-Age=${ID_COOKIE_SECONDS}; SameSite=Lax` +
    (domain ? `; Domain=${domain}` : '') +
    // A browser keeps a Secure cookie only from https, except on its own machine (Chrome and
    // Firefox treat http://localhost as secure; http://127.0.0.1 and a LAN name are not all so).
    (request.plainLoopback ? '' : '; Secure');
  // Meta's and Google's domain index: the labels of the cookie's domain less one (1 for
  // `shop.example`), 1 on an IP address or a one-label host, as the tag counts it.
  const on = domain ?? host;
  const index = IP_OR_ONE_LABEL.test(on) ? 1 : on.split('.').length - 1;
  const out: string[] = [];
  const set = (name: string, value: string) => out.push(`${name}=${encodeURIComponent(value)}${attributes}`);

  const id = event.anonymous_id;
  if (typeof id === 'string' && id !== '' && id.length <= 256) set('eventbus_anonymous_id', id);

  // Each platform's cookies, as its facts say (core/platforms/<platform>/facts.ts).
  const campaign = (event.campaign ?? {}) as Readonly<Record<string, unknown>>;
  const input = {
    campaign,
    cookie: (name: string) => cookieValue(request.cookie, name),
    index,
    now,
    random: randomInt,
  };
  const types = new Set(settings.destinations?.map((d) => d.type));
  for (const f of factsWith('cookies'))
    for (const c of f.cookies) {
      if (c.withDestination && !types.has(f.type)) continue;
      if (!c.purposes.every((p) => purposes[p].state === 'granted')) continue;
      const value = c.value(input);
      if (value !== undefined) set(c.name, value);
    }
  return out;
}

/** One cookie of a `Cookie` header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The request's cookie context: the host the browser used and whether it is local plain http. */
export function cookieRequestOf(
  req: IncomingMessage,
  proto: string,
  forwardedHost: string | undefined,
): CookieRequest {
  const host = (forwardedHost ?? req.headers.host ?? '')
    .toLowerCase()
    .replace(/^\[([^\]]*)\].*$|:\d+$/, '$1')
    .replace(/\.$/, '');
  const peer = req.socket.remoteAddress ?? '';
  const loopback = peer === '::1' || peer.startsWith('127.') || peer.startsWith('::ffff:127.');
  return { host, plainLoopback: proto === 'http' && loopback, cookie: req.headers.cookie };
}
