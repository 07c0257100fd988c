/**
 * Ids the gateway sets in its answer to a page's batch (docs/browser.md, "Ids the server sets"):
 * the anonymous id the tag holds, Meta's `_fbp` and `_fbc`, and a `_ga`-compatible client id when
 * GA4 is a destination, as `Set-Cookie` headers on the batch's own 200 — no request of their own.
 * Safari's ITP caps cookies a script writes at 7 days; one an HTTP answer sets from the site's own
 * address lives as long as it says, up to the browser's cap (Chrome's: 400 days).
 *
 * Consent decides first, through the one resolver (core/consent/resolve.ts) reading the batch's
 * last event as the decision layer reads a stored one: nothing is set unless storage (the
 * `analytics` purpose, TCF purpose 1 included) is granted, and Meta's cookies need `ads` too.
 * Every value re-affirms what the page holds (the event's `anonymous_id`, its `campaign.fbp` and
 * `fbc`, the request's `_ga` cookie); a new one is made only where the page has none.
 */
import { randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { OutgoingMessage } from '../adapters/publisher.ts';
import { resolvePurposes } from '../core/consent/resolve.ts';
import type { StoredEvent } from '../core/event.ts';
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

  if (purposes.ads.state === 'granted') {
    const campaign = (event.campaign ?? {}) as Readonly<Record<string, unknown>>;
    const fbp = campaign['fbp'];
    set(
      '_fbp',
      typeof fbp === 'string' && FBP.test(fbp) ? fbp : `fb.${index}.${now}.${randomInt(1e9, 1e10)}`,
    );
    const fbc = campaign['fbc'];
    const fbclid = campaign['fbclid'];
    if (
      typeof fbclid === 'string' &&
      fbclid !== '' &&
      !(typeof fbc === 'string' && fbc.endsWith(`.${fbclid}`))
    )
      set('_fbc', `fb.${index}.${now}.${fbclid}`);
    else if (typeof fbc === 'string' && FBC.test(fbc)) set('_fbc', fbc);
  }

  if (settings.destinations?.some((d) => d.type === 'ga4_mp')) {
    const ga = cookieValue(request.cookie, '_ga');
    set(
      '_ga',
      ga && GA.test(ga) ? ga : `GA1.${index}.${randomInt(1e8, 2 ** 31 - 1)}.${Math.floor(now / 1000)}`,
    );
  }
  return out;
}

/** Meta's formats: `fb.<subdomain index>.<creation ms>.<random>` and `fb.<index>.<ms>.<fbclid>`. */
const FBP = /^fb\.\d\.\d{13}\.\d{1,20}$/;
const FBC = /^fb\.\d\.\d{13}\.[\w-]{1,500}$/;
/** gtag's `_ga`: `GA1.<domain index>.<random>.<creation seconds>` (the client id is the last two). */
const GA = /^GA1\.\d\.\d{1,12}\.\d{9,11}$/;

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
