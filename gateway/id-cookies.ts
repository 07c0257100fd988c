/**
 * Ids the gateway sets in its answer to a page's batch (docs/browser.md, "Ids the server sets"):
 * the anonymous id the tag holds and the platforms' cookies their facts declare (Meta's `_fbp` and
 * `_fbc`), as `Set-Cookie` headers on the batch's own 200 — no request of their own.
 * Safari's ITP caps cookies a script writes at 7 days; one an HTTP answer sets from the site's own
 * address lives as long as it says, up to the browser's cap (Chrome's: 400 days).
 *
 * Consent decides first, through the one resolver (core/consent/resolve.ts) reading the batch's
 * last event as the decision layer reads a stored one, and the storage rules the tag follows too
 * (core/consent/storage-rules.ts): nothing is set unless storage (the `analytics` purpose, TCF
 * purpose 1 included) is granted, Meta's cookies need `ads` too, and what the rules say to remove
 * (a refusal, a withdrawal, a malformed TC string, an opt-out of sale for Meta's) is expired with
 * `Max-Age=0` where the browser sent it. Storage unknown (no signal, or a consent platform still
 * silent) neither sets nor expires anything. Every value re-affirms what the page holds (the
 * event's `anonymous_id`, its `campaign.fbp` and `fbc`); a new one is made only where the page
 * has none. `_ga` (with a GA4 destination) holds GA4's client id: the page's own, gtag's or ours,
 * read into each event as `campaign.ga_client_id` before it is published (gaClientIds, below), or
 * one derived from the anonymous id where the page has none; GA4 is sent that id as `client_id`
 * and the answer sets `_ga` from it, so gtag.js on the same page sees one client
 * (core/platforms/ga4/client-id.ts).
 */
import { randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { OutgoingMessage } from '../adapters/publisher.ts';
import { resolvePurposes, TCF_MISSING } from '../core/consent/resolve.ts';
import { type StorageItem, storageVerdicts } from '../core/consent/storage-rules.ts';
import { readTcf } from '../core/consent/tcf.ts';
import { webConsent } from '../core/consent/web-consent.ts';
import type { StoredEvent } from '../core/event.ts';
import { pseudonymousId } from '../core/linkage/transforms.ts';
import { factsWith } from '../core/platforms/facts.ts';
import { gaClientIdOf } from '../core/platforms/ga4/client-id.ts';
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
  /** A cookieless page's batch (the tag's `?cookieless=1`): nothing is set or expired. */
  readonly cookieless?: boolean | undefined;
}

/** Each cookie this project sets, by the storage item it is (core/consent/storage-rules.ts). */
const COOKIE_ITEMS: readonly (readonly [string, StorageItem])[] = [
  ['eventbus_anonymous_id', 'id'],
  ['_fbp', 'fbp'],
  ['_fbc', 'fbc'],
  ['_ga', 'ga'],
];
const ITEM_OF_COOKIE: ReadonlyMap<string, StorageItem> = new Map(COOKIE_ITEMS);

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
 * The `Set-Cookie` values for a page's batch: the ids the storage rules let it set, and an expiry
 * for each of ours the browser sent that they remove. `messages`: the batch's events as published
 * (their data is the normalised event).
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
    event = JSON.parse(last.data.toString('utf8')) as StoredEvent;
  } catch {
    return [];
  }
  const sent = sentCookies(request);
  const { purposes, verdicts } = decide(settings, request, event, sent);

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
  // What the rules remove goes from the browser where it sent it: the same name, domain and path.
  for (const [name, item] of COOKIE_ITEMS)
    if (verdicts[item] === 'remove' && sent.has(name))
      out.push(`${name}=${attributes.replace(/Max-Age=\d+/, 'Max-Age=0')}`);

  const id = event.anonymous_id;
  if (verdicts.id === 'store' && typeof id === 'string' && id !== '' && id.length <= 256)
    set('eventbus_anonymous_id', id);

  // Each platform's cookies, as its facts say (core/platforms/<platform>/facts.ts), each set only
  // where the storage rules say to store its item (a cookie the rules do not name: where its own
  // purposes are all granted).
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
      const item = ITEM_OF_COOKIE.get(c.name);
      if (item ? verdicts[item] !== 'store' : !c.purposes.every((p) => purposes[p].state === 'granted'))
        continue;
      const value = c.value(input);
      if (value !== undefined) set(c.name, value);
    }
  return out;
}

/** Our cookies the browser sent with the request. */
const sentCookies = (request: CookieRequest): ReadonlySet<string> =>
  new Set(COOKIE_ITEMS.map(([name]) => name).filter((n) => cookieValue(request.cookie, n)));

/** The resolver's purposes for an event of a page's batch, and the storage rules' verdicts from them. */
function decide(
  settings: Readonly<Settings>,
  request: CookieRequest,
  parsed: Omit<StoredEvent, 'event_data'> & { readonly event_data?: unknown },
  sent: ReadonlySet<string>,
) {
  // The resolver reads a stored event, whose event_data is always an object.
  const event = (
    typeof parsed.event_data === 'object' && parsed.event_data ? parsed : { ...parsed, event_data: {} }
  ) as StoredEvent;
  const purposes = resolvePurposes(event, undefined, settings.producers?.honor_gpc ?? true);
  const web = webConsent(event);
  const verdicts = storageVerdicts({
    // A TCF CMP that had not answered (GDPR applies, no string yet) is no answer: unknown.
    storage: purposes.analytics === TCF_MISSING ? undefined : purposes.analytics.state,
    ads: purposes.ads.state,
    optOut: ['GPC', 'US Privacy', 'GPP'].includes(purposes.ads.signal ?? ''),
    malformed: web.tcf !== undefined && web.gdprApplies !== false && !readTcf(web.tcf).ok,
    pending: purposes.analytics === TCF_MISSING || web.gppPending === true,
    cookieless: request.cookieless === true,
    had: sent.size > 0,
  });
  return { purposes, verdicts };
}

/** The destination types whose facts declare the `_ga` cookie (GA4's). */
const GA_COOKIE_TYPES: ReadonlySet<string> = new Set(
  factsWith('cookies')
    .filter((f) => f.cookies.some((c) => c.name === '_ga'))
    .map((f) => f.type),
);

/**
 * GA4's client id for each event of a page's batch, as `campaign.ga_client_id` (gateway/envelope.ts
 * fills it): the request's `_ga` (gtag's, or one this gateway set) when it is in gtag's format,
 * else one derived from the event's anonymous id (`<n>.<n>` from its SHA-256, as the GA4 mapping
 * derives a stand-in from a user id: the same for every batch of the page's id, also where the
 * answer's cookie cannot be kept, a gateway on another site, and known to the GA4 user deletion);
 * and only for an event whose consent the storage rules let store `ga` (storage granted):
 * otherwise the cookie is not even read. Undefined, nothing to fill, without a GA4 destination or
 * on a cookieless page. The answer's `_ga` is set from the same id (core/platforms/ga4/facts.ts),
 * so the cookie and the `client_id` GA4 is sent agree.
 */
export function gaClientIds(
  settings: Readonly<Settings>,
  request: CookieRequest,
): ((event: Parameters<typeof decide>[2]) => string | undefined) | undefined {
  if (request.cookieless === true) return undefined;
  if (!settings.destinations?.some((d) => GA_COOKIE_TYPES.has(d.type) && d.enabled !== false))
    return undefined;
  const sent = sentCookies(request);
  const page = gaClientIdOf(cookieValue(request.cookie, '_ga'));
  return (event) => {
    if (decide(settings, request, event, sent).verdicts.ga !== 'store') return undefined;
    return page ?? (typeof event.anonymous_id === 'string' ? pseudonymousId(event.anonymous_id) : undefined);
  };
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
