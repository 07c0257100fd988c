/**
 * A stored event written as the Segment spec event an Action Destination expects
 * (docs/catalog-destinations.md, "The Segment event"): the call type from our event name
 * (page_view → page, user_identified → identify, user_grouped → group, user_aliased → alias,
 * anything else → track), the e-commerce spec's names for the catalogue events
 * (purchase → Order Completed …), `properties`, `traits`, `context` (ip, userAgent, locale, page,
 * campaign, traits, consent, and Engage's `personas` from `event_data.personas`), `userId`,
 * `anonymousId`, `messageId` = event_id and
 * `timestamp` = event_time; an `Order Completed` also carries `revenue` (orderRevenue). The
 * inverse of the Segment source's translator (examples/translators/segment-rudderstack.yaml), so
 * an event that came from Segment goes out as it came in. Pure.
 */
import type { StoredEvent } from '../../event.ts';

/** A Segment spec event (only what we fill; actions read it through mapping-kit paths). */
export type SegmentEvent = Record<string, unknown> & {
  readonly type: 'track' | 'page' | 'identify' | 'group' | 'alias';
  readonly messageId: string;
  readonly timestamp: string;
};

/** Our catalogue events under the Segment e-commerce and B2B spec names their presets subscribe to. */
export const SPEC_EVENT_NAMES: Readonly<Record<string, string>> = Object.freeze({
  purchase: 'Order Completed',
  add_to_cart: 'Product Added',
  view_content: 'Product Viewed',
  search: 'Products Searched',
  begin_checkout: 'Checkout Started',
  add_payment_info: 'Payment Info Entered',
  sign_up: 'Signed Up',
  subscribe: 'Subscription Started',
  lead: 'Lead Generated',
});

/**
 * Engage's audience track calls under our event names, as an audience sync publishes them
 * (core/syncs/audience-events.ts): an audience destination's actions take them by their own
 * default subscriptions (`event = "Audience Entered"`).
 */
export const AUDIENCE_EVENT_NAMES: Readonly<Record<string, string>> = Object.freeze({
  audience_entered: 'Audience Entered',
  audience_exited: 'Audience Exited',
});

/**
 * The Segment event name of a track call of ours: the spec's name of a catalogue event, Engage's
 * `Audience Entered` / `Audience Exited` for an audience sync's events
 * (core/syncs/audience-events.ts), else our own name.
 */
export function segmentEventName(eventName: string): string {
  return SPEC_EVENT_NAMES[eventName] ?? AUDIENCE_EVENT_NAMES[eventName] ?? eventName;
}

/** Calls that are not `track`, by our event name. */
export const CALL_TYPES: Readonly<Record<string, SegmentEvent['type']>> = Object.freeze({
  page_view: 'page',
  user_identified: 'identify',
  user_grouped: 'group',
  user_aliased: 'alias',
});

/** event_data fields written as Segment's property names; the rest keep their own names. */
const PROPERTY_NAMES: Readonly<Record<string, string>> = Object.freeze({
  transaction_id: 'order_id',
  search_term: 'query',
  content_id: 'product_id',
  content_name: 'name',
  content_type: 'content_type',
});

/** Fields of event_data that are not properties (they have their own place in the Segment event). */
const NOT_PROPERTIES = new Set([
  'properties',
  'traits',
  'items',
  'group_id',
  'previous_id',
  'page_name',
  'personas',
  'audience_destinations',
  // A withdrawal's exit's entry consent: the decision layer's, never the platform's.
  'audience_entry_consent',
]);

/**
 * What a destination's documentation says to send as the IP when there is none, so the platform
 * does not place the person where the request came from (the function's data centre), by slug.
 * Mixpanel: `ip` (events) and `$ip` (profiles) set to "0" make it ignore IP information
 * (developer.mixpanel.com, Ingestion API: Import Events and Profile Set); without one it reads the
 * request's. Amplitude needs nothing: it reads the request's address only when `ip` is `$remote`.
 */
export const NO_IP: Readonly<Record<string, string>> = Object.freeze({ mixpanel: '0' });

/**
 * The Segment event a stored event is sent to an action as; `noIp` is the destination's "no IP"
 * value (NO_IP), sent as `context.ip` when the event has no device IP.
 */
export function segmentEventOf(event: StoredEvent, noIp?: string): SegmentEvent {
  const data = event.event_data;
  const type = CALL_TYPES[event.event_name] ?? 'track';
  const traits = userTraits(event);
  const ctx = context(event, traits);
  if (ctx['ip'] === undefined && noIp !== undefined) ctx['ip'] = noIp;
  const out: Record<string, unknown> = {
    type,
    messageId: event.event_id,
    timestamp: event.event_time,
    receivedAt: event.received_at ?? event.event_time,
    // When the producer sent it: our endpoint's receipt is the nearest we know (no clock skew to
    // correct, as `timestamp` is already the producer's). Actions require it (Canvas' sent_at).
    sentAt: event.received_at ?? event.event_time,
    originalTimestamp: event.event_time,
    context: ctx,
    integrations: {},
  };
  if (event.user_id !== undefined) out['userId'] = event.user_id;
  if (event.anonymous_id !== undefined) out['anonymousId'] = event.anonymous_id;
  switch (type) {
    case 'track': {
      out['event'] = segmentEventName(event.event_name);
      const props = properties(data);
      const revenue = event.event_name === 'purchase' ? orderRevenue(data) : undefined;
      if (revenue !== undefined && props['revenue'] === undefined) props['revenue'] = revenue;
      oneProduct(out['event'] as string, props);
      out['properties'] = props;
      break;
    }
    case 'page':
      out['name'] = text(data['page_name']) ?? event.page?.['title'];
      out['properties'] = { ...pageOf(event), ...properties(data) };
      break;
    case 'identify':
      out['traits'] = { ...traits, ...record(data['traits']) };
      break;
    case 'group':
      out['groupId'] = text(data['group_id']);
      out['traits'] = record(data['traits']);
      break;
    case 'alias':
      out['previousId'] = text(data['previous_id']);
      break;
  }
  return out as SegmentEvent;
}

/** The track or page properties: the producer's own `properties` as sent, then our fields in spec names. */
function properties(data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...record(data['properties']) };
  for (const [key, value] of Object.entries(data)) {
    if (NOT_PROPERTIES.has(key) || value === undefined) continue;
    out[PROPERTY_NAMES[key] ?? key] = value;
  }
  // Our value is the order's total, Segment's `total`.
  if (typeof data['value'] === 'number') out['total'] = data['value'];
  const items = data['items'];
  if (Array.isArray(items)) out['products'] = items.map(product);
  return out;
}

/** Spec events about one product, whose product's fields are the properties themselves. */
const ONE_PRODUCT = new Set(['Product Added', 'Product Viewed', 'Product Removed', 'Product Clicked']);

/**
 * A one-product spec event (`Product Added`: our `add_to_cart` of one item line) as Segment's spec
 * writes it: the product's fields (`product_id`, `sku`, `name`, `price`, `quantity`…) at the top of
 * `properties`, where actions read them (Facebook Conversions' `content_ids`), beside `products`.
 * The producer's own properties of those names win.
 */
function oneProduct(name: string, props: Record<string, unknown>): void {
  const products = props['products'];
  if (!ONE_PRODUCT.has(name) || !Array.isArray(products) || products.length !== 1) return;
  for (const [key, value] of Object.entries(record(products[0])))
    if (props[key] === undefined) props[key] = value;
}

/**
 * Segment's `revenue` of an `Order Completed` (docs/catalog-destinations.md, "Revenue"): the
 * spec's revenue excludes shipping and tax, which our contract carries only when the producer
 * gives them, so it is our `value` less `tax` and `shipping` where given (the order's value when
 * neither is), unless the producer's own `properties.revenue` says otherwise. Analytics tools
 * read it (Amplitude's and Mixpanel's revenue, Intercom's price); a mapping override picks another.
 */
export function orderRevenue(data: Readonly<Record<string, unknown>>): number | undefined {
  const value = data['value'];
  if (typeof value !== 'number') return undefined;
  const less = (key: string) => (typeof data[key] === 'number' ? (data[key] as number) : 0);
  // Rounded to the cent's thousandth: 10.1 - 0.1 is not 10 in binary.
  return Math.round((value - less('tax') - less('shipping')) * 1000) / 1000;
}

/** An item line's fields under their Segment product names (item_id is both product_id and sku). */
const PRODUCT_FIELDS = [
  ['item_id', 'product_id'],
  ['item_id', 'sku'],
  ['item_name', 'name'],
  ['item_category', 'category'],
  ['item_brand', 'brand'],
  ['item_variant', 'variant'],
  ['price', 'price'],
  ['quantity', 'quantity'],
] as const;

/** The person's fields under their Segment trait names, and those of the trait `address`. */
const TRAIT_FIELDS = [
  ['email', 'email'],
  ['phone', 'phone'],
  ['first_name', 'firstName'],
  ['last_name', 'lastName'],
  ['gender', 'gender'],
  ['date_of_birth', 'birthday'],
] as const;
const ADDRESS_FIELDS = [
  ['city', 'city'],
  ['region', 'state'],
  ['postal_code', 'postalCode'],
  ['country', 'country'],
] as const;

/** The fields of `from` named in `fields`, under their Segment names; absent and empty ones left out. */
function renamed(
  from: Readonly<Record<string, unknown>>,
  fields: readonly (readonly [string, string])[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, to] of fields) if (from[name] !== undefined && from[name] !== '') out[to] = from[name];
  return out;
}

/** One item line as a Segment product. */
function product(item: unknown): Record<string, unknown> {
  return renamed(record(item), PRODUCT_FIELDS);
}

/** The person's fields as Segment traits (camelCase names, address as an object). */
function userTraits(event: StoredEvent): Record<string, unknown> {
  const u = event.user ?? {};
  const out = renamed(u, TRAIT_FIELDS);
  const address = renamed(u, ADDRESS_FIELDS);
  if (Object.keys(address).length > 0) out['address'] = address;
  if (event.user_id !== undefined) out['userId'] = event.user_id;
  return out;
}

/** Segment's `context`: the device, the page, the campaign, the person's traits and consent. */
function context(event: StoredEvent, traits: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const d = event.device ?? {};
  if (d.ip) out['ip'] = d.ip;
  if (d.user_agent) out['userAgent'] = d.user_agent;
  if (d.locale) out['locale'] = d.locale;
  const page = pageOf(event);
  if (Object.keys(page).length > 0) out['page'] = page;
  const campaign = campaignOf(event);
  if (Object.keys(campaign).length > 0) out['campaign'] = campaign;
  if (Object.keys(traits).length > 0) out['traits'] = traits;
  const consent = consentOf(event);
  if (consent) out['consent'] = consent;
  const groupId = text(event.event_data['group_id']);
  if (groupId !== undefined) out['groupId'] = groupId;
  // Engage's audience computation (an audience sync's events: core/syncs/audience-events.ts).
  const personas = record(event.event_data['personas']);
  if (Object.keys(personas).length > 0) out['personas'] = personas;
  return out;
}

/** Segment's campaign fields and the page URL's `utm_*` parameter each is read from. */
const CAMPAIGN_FIELDS = [
  ['source', 'utm_source'],
  ['medium', 'utm_medium'],
  ['name', 'utm_campaign'],
  ['term', 'utm_term'],
  ['content', 'utm_content'],
] as const;

/**
 * `context.campaign` as Segment's libraries write it from the page URL's `utm_*`: each field from
 * the producer's `campaign`, else the enrichment's (core/enrich/), else the page URL's own
 * parameter, so it is filled whether or not enrichment is on.
 */
function campaignOf(event: StoredEvent): Record<string, string> {
  const given = event.campaign ?? {};
  const enriched = event.enriched?.campaign ?? {};
  let params: URLSearchParams | undefined;
  const url = event.page?.['url'];
  if (url?.includes('utm_'))
    try {
      params = new URL(url).searchParams;
    } catch {
      // A page URL that does not parse has no parameters to read.
    }
  const out: Record<string, string> = {};
  for (const [key, param] of CAMPAIGN_FIELDS) {
    const v = given[key] || enriched[key] || params?.get(param);
    if (v) out[key] = v;
  }
  return out;
}

/** The page as Segment writes it: url, path, search, title, referrer. */
function pageOf(event: StoredEvent): Record<string, string> {
  const p = event.page ?? {};
  const out: Record<string, string> = {};
  const url = p['url'];
  if (url) {
    out['url'] = url;
    try {
      const parsed = new URL(url);
      out['path'] = parsed.pathname;
      if (parsed.search) out['search'] = parsed.search;
    } catch {
      // A URL the browser sent that does not parse: kept as it is, without path and search.
    }
  }
  if (p['title']) out['title'] = p['title'];
  if (p['referrer']) out['referrer'] = p['referrer'];
  return out;
}

/**
 * Consent as Segment's consent object writes it (`categoryPreferences`, one boolean per
 * category): Advertising from `ads` (or ad_user_data), Analytics from `analytics`; the purposes
 * the event says nothing about are left out.
 */
function consentOf(event: StoredEvent): Record<string, unknown> | undefined {
  const c = event.consent ?? {};
  const prefs: Record<string, boolean> = {};
  const ads = c['ads'] ?? c['ad_user_data'];
  if (ads === 'granted' || ads === 'denied') prefs['Advertising'] = ads === 'granted';
  const analytics = c['analytics'];
  if (analytics === 'granted' || analytics === 'denied') prefs['Analytics'] = analytics === 'granted';
  return Object.keys(prefs).length > 0 ? { categoryPreferences: prefs } : undefined;
}

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}
