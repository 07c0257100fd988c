/**
 * The context fields every event may carry (docs/architecture.md §3), as typebox schemas: the single
 * source for validation, TypeScript types, warehouse columns, OpenAPI and docs. Context
 * fields sit at the top level of an event; every other top-level field is event data.
 */
import Type, { type Static } from 'typebox';

/** Custom and catalogue event names: snake_case, 1–40 characters. */
export const EVENT_NAME_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
/** Prefixes reserved by Google's analytics products; no event name may start with them. */
export const RESERVED_EVENT_PREFIXES = Object.freeze(['ga_', 'google_', 'firebase_']);

const Text = (maxLength: number, description: string) => Type.String({ maxLength, description });

export const ConsentState = Type.Union([Type.Literal('granted'), Type.Literal('denied')], {
  description: 'Whether the person granted the purpose',
});
export type ConsentState = Static<typeof ConsentState>;

export const User = Type.Object(
  {
    email: Type.Optional(Text(320, 'E-mail address, plain or SHA-256 hex')),
    phone: Type.Optional(Text(64, 'Phone number, any format, or SHA-256 hex')),
    first_name: Type.Optional(Text(256, 'Given name')),
    last_name: Type.Optional(Text(256, 'Family name')),
    date_of_birth: Type.Optional(
      Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD' }),
    ),
    gender: Type.Optional(Text(32, 'Gender as the producer knows it (e.g. f, m)')),
    city: Type.Optional(Text(256, 'City')),
    region: Type.Optional(Text(256, 'State or region')),
    postal_code: Type.Optional(Text(32, 'Postal code')),
    country: Type.Optional(Text(64, 'Country, ISO 3166-1 alpha-2 preferred')),
    external_id: Type.Optional(Text(256, "The business's own id for the person")),
  },
  { additionalProperties: false, description: 'Who the event is about (PII: see settings.pii)' },
);
export type User = Static<typeof User>;

export const Page = Type.Object(
  {
    url: Type.Optional(Text(8192, 'Page URL')),
    referrer: Type.Optional(Text(8192, 'Referring URL')),
    title: Type.Optional(Text(1024, 'Page title')),
  },
  { additionalProperties: false, description: 'The page the event happened on' },
);
export type Page = Static<typeof Page>;

/**
 * The User-Agent Client Hints a browser sent with the request (docs/enrichment.md, "Client
 * hints"): the raw header values, unparsed, so the gateway only copies them; the store function's
 * enrichment reads them. Filled by the gateway when absent, with the user agent.
 */
export const ClientHints = Type.Object(
  {
    ua: Type.Optional(Text(1024, 'Sec-CH-UA: brands and significant versions')),
    mobile: Type.Optional(Text(8, 'Sec-CH-UA-Mobile: ?1 on a mobile device, ?0 otherwise')),
    platform: Type.Optional(Text(128, 'Sec-CH-UA-Platform, e.g. "Windows"')),
    platform_version: Type.Optional(Text(128, 'Sec-CH-UA-Platform-Version, e.g. "15.0.0"')),
    model: Type.Optional(Text(256, 'Sec-CH-UA-Model, e.g. "Pixel 3 XL"')),
    full_version_list: Type.Optional(Text(1024, 'Sec-CH-UA-Full-Version-List: brands and full versions')),
  },
  {
    additionalProperties: false,
    description: 'User-Agent Client Hints headers as received (filled by the gateway when absent)',
  },
);
export type ClientHints = Static<typeof ClientHints>;

export const Device = Type.Object(
  {
    ip: Type.Optional(Text(64, 'Client IP (filled by the gateway when absent, per settings)')),
    user_agent: Type.Optional(Text(2048, 'User agent (filled by the gateway when absent, per settings)')),
    locale: Type.Optional(Text(64, 'Locale, e.g. en-US')),
    client_hints: Type.Optional(ClientHints),
  },
  { additionalProperties: false, description: 'The client device' },
);
export type Device = Static<typeof Device>;

export const Campaign = Type.Object(
  {
    source: Type.Optional(Text(512, 'utm_source')),
    medium: Type.Optional(Text(512, 'utm_medium')),
    name: Type.Optional(Text(512, 'utm_campaign')),
    term: Type.Optional(Text(512, 'utm_term')),
    content: Type.Optional(Text(512, 'utm_content')),
    gclid: Type.Optional(Text(512, 'Google click id')),
    fbclid: Type.Optional(Text(512, 'Meta click id')),
    ttclid: Type.Optional(Text(512, 'TikTok click id')),
    fbc: Type.Optional(Text(512, 'Meta _fbc cookie')),
    fbp: Type.Optional(Text(512, 'Meta _fbp cookie')),
    ttp: Type.Optional(Text(512, 'TikTok _ttp cookie (sent to TikTok as user.ttp)')),
    // The next ad platforms' click ids (URL parameters) and first-party cookies, under the names
    // their conversion APIs use (Google Ads, Microsoft, Snapchat, Pinterest, LinkedIn, Reddit, X);
    // appended so existing tables take them in place (docs/enrichment.md).
    gbraid: Type.Optional(Text(512, 'Google Ads app click id (gbraid URL parameter)')),
    wbraid: Type.Optional(Text(512, 'Google Ads web click id (wbraid URL parameter)')),
    msclkid: Type.Optional(
      Text(512, 'Microsoft Advertising click id (msclkid parameter, _uetmsclkid cookie)'),
    ),
    sccid: Type.Optional(Text(512, 'Snapchat click id (ScCid URL parameter)')),
    scid: Type.Optional(Text(512, 'Snapchat _scid cookie')),
    epik: Type.Optional(Text(512, 'Pinterest click id (epik URL parameter, _epik cookie)')),
    li_fat_id: Type.Optional(Text(512, 'LinkedIn click id (li_fat_id URL parameter or cookie)')),
    rdt_cid: Type.Optional(Text(512, 'Reddit click id (rdt_cid URL parameter)')),
    rdt_uuid: Type.Optional(Text(512, 'Reddit _rdt_uuid cookie')),
    twclid: Type.Optional(Text(512, 'X click id (twclid URL parameter, _twclid cookie)')),
    ga_client_id: Type.Optional(
      Text(
        64,
        "GA4 client id: the _ga cookie's <random>.<seconds>, filled by the gateway for a page's batch where storage is permitted (sent to GA4 as client_id)",
      ),
    ),
  },
  { additionalProperties: false, description: 'Attribution' },
);
export type Campaign = Static<typeof Campaign>;

/**
 * A Consent Mode default given for some regions only (`gtag('consent', 'default', {..., region})`):
 * the regions as ISO 3166-1 alpha-2 countries or ISO 3166-2 subdivisions (`ES`, `US-CA`), and the
 * states it gives, in Consent Mode's names. The resolver applies it where the visitor is
 * (core/consent/regions.ts).
 */
export const RegionDefault = Type.Object(
  {
    region: Type.Array(Type.String({ pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,3})?$' }), {
      minItems: 1,
      maxItems: 300,
    }),
    ad_storage: Type.Optional(ConsentState),
    analytics_storage: Type.Optional(ConsentState),
    ad_user_data: Type.Optional(ConsentState),
    ad_personalization: Type.Optional(ConsentState),
  },
  { additionalProperties: false, description: 'A Consent Mode default for some regions' },
);
export type RegionDefault = Static<typeof RegionDefault>;

/**
 * Consent as sites express it (docs/delivery.md, "Consent"): our purposes, Google Consent Mode's
 * storage names (`ad_storage` is `ads`, `analytics_storage` is `analytics`; where both are given
 * and differ, denied wins), and the web's strings — the IAB TCF string, GPP, US Privacy — and
 * Global Privacy Control, which the decision layer reads (core/consent/).
 */
export const Consent = Type.Object(
  {
    analytics: Type.Optional(ConsentState),
    ads: Type.Optional(ConsentState),
    ad_user_data: Type.Optional(ConsentState),
    ad_personalization: Type.Optional(ConsentState),
    ad_storage: Type.Optional(ConsentState),
    analytics_storage: Type.Optional(ConsentState),
    tcf: Type.Optional(
      Type.String({ maxLength: 16384, description: "IAB TCF v2 TC string (the CMP's tcString)" }),
    ),
    gdpr_applies: Type.Optional(
      Type.Boolean({
        description: "Whether GDPR applies (the CMP's gdprApplies); default: applies when tcf is set",
      }),
    ),
    gpp: Type.Optional(Type.String({ maxLength: 16384, description: 'IAB GPP string' })),
    gpp_sid: Type.Optional(
      Type.String({
        pattern: '^-?[0-9]+([,_][0-9]+)*$',
        maxLength: 256,
        description: 'The GPP sections in force, comma-separated (gpp_sid)',
      }),
    ),
    us_privacy: Type.Optional(
      Type.String({ pattern: '^[0-9][YNyn-]{3}$', description: 'IAB US Privacy string (e.g. 1YYN)' }),
    ),
    gpc: Type.Optional(
      Type.Boolean({ description: 'Global Privacy Control (the gateway sets it from Sec-GPC: 1)' }),
    ),
    gpp_pending: Type.Optional(
      Type.Boolean({
        description:
          'Sent before the page’s GPP CMP was ready: its state is unknown, so no opt-out is ruled out',
      }),
    ),
    region_defaults: Type.Optional(
      Type.Array(RegionDefault, {
        maxItems: 16,
        description:
          "Consent Mode's defaults given for some regions only (gtag's region), applied where the visitor is",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Consent per purpose; a purpose a destination needs that is not granted means skip',
  },
);
export type Consent = Static<typeof Consent>;

/** RFC 3339 date-time (checked further by the normaliser, which also parses it). */
export const RFC3339_PATTERN =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$';

/** What an event_id may hold: visible ASCII (no spaces or control characters). */
export const EVENT_ID_PATTERN = '^[!-~]+$';

/** The context fields as producers send them (event_id and event_time optional). */
export const Context = Type.Object(
  {
    event_name: Type.String({ pattern: EVENT_NAME_PATTERN, description: 'snake_case event name' }),
    event_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        // Visible ASCII only: the id travels in HTTP headers (the webhook's x-eventbus-event-id),
        // and a control character there (a CR LF) could never be sent, so it is refused up front.
        pattern: EVENT_ID_PATTERN,
        description:
          'Idempotency key, 1–128 visible ASCII characters; the gateway mints a UUIDv7 when absent',
      }),
    ),
    event_time: Type.Optional(
      Type.Union(
        [
          Type.String({ pattern: RFC3339_PATTERN, description: 'RFC 3339' }),
          Type.Integer({ minimum: 0, maximum: 8640000000000000, description: 'epoch milliseconds' }),
        ],
        { description: 'When it happened; default: when the gateway received it' },
      ),
    ),
    user_id: Type.Optional(Text(256, 'Signed-in user id')),
    anonymous_id: Type.Optional(Text(256, 'Anonymous (device or cookie) id')),
    session_id: Type.Optional(Text(256, 'Session id')),
    source: Type.Optional(Text(256, 'Producer name, e.g. web or backend')),
    user: Type.Optional(User),
    page: Type.Optional(Page),
    device: Type.Optional(Device),
    campaign: Type.Optional(Campaign),
    consent: Type.Optional(Consent),
  },
  { additionalProperties: false },
);
export type Context = Static<typeof Context>;

/** Top-level keys that are context; every other top-level key is event data. */
export const CONTEXT_FIELDS: ReadonlySet<string> = new Set(Object.keys(Context.properties));

/** The context groups (nested objects), in the order they are stored. */
export const CONTEXT_GROUPS = Object.freeze(['user', 'page', 'device', 'campaign', 'consent'] as const);
export type ContextGroup = (typeof CONTEXT_GROUPS)[number];

/** The channels an event's visit is classified into (docs/enrichment.md, "Channel"). */
export const CHANNELS = Object.freeze([
  'direct',
  'organic_search',
  'paid_search',
  'social',
  'email',
  'display',
  'referral',
  'internal',
] as const);
export type Channel = (typeof CHANNELS)[number];

const Derived = (description: string) => Type.Optional(Type.String({ description }));

/**
 * What the store function derives from an event (core/enrich/, docs/enrichment.md): never sent by
 * producers, stored in the `enriched` column and readable by conditions and mappings as
 * `enriched.*`. Every field is optional: absent when its input was absent or its switch is off.
 */
export const Enriched = Type.Object(
  {
    campaign: Type.Optional(
      Type.Object(
        {
          source: Derived('utm_source: the producer’s campaign.source, else from page.url'),
          medium: Derived('utm_medium, likewise'),
          name: Derived('utm_campaign, likewise'),
          term: Derived('utm_term, likewise'),
          content: Derived('utm_content, likewise'),
          gclid: Derived('Google click id: campaign.gclid, else the page URL’s gclid'),
          gbraid: Derived('Google Ads gbraid, likewise'),
          wbraid: Derived('Google Ads wbraid, likewise'),
          fbclid: Derived('Meta click id, likewise'),
          ttclid: Derived('TikTok click id, likewise'),
          msclkid: Derived('Microsoft click id, likewise'),
          sccid: Derived('Snapchat ScCid, likewise'),
          epik: Derived('Pinterest epik, likewise'),
          li_fat_id: Derived('LinkedIn li_fat_id, likewise'),
          rdt_cid: Derived('Reddit rdt_cid, likewise'),
          twclid: Derived('X twclid, likewise'),
          fbc: Derived('Meta fbc: campaign.fbc, else fb.1.<event_time ms>.<fbclid>'),
        },
        {
          additionalProperties: false,
          description:
            'Attribution in effect: the producer’s campaign fields win, the page URL fills the rest',
        },
      ),
    ),
    channel: Type.Optional(
      Type.Union(
        CHANNELS.map((c) => Type.Literal(c)),
        { description: CHANNELS.join(' | ') },
      ),
    ),
    referrer_host: Derived('Host of page.referrer, lower-case'),
    referrer_source: Derived('The referrer’s name in the referrer list (Google, Facebook, Gmail…)'),
    device: Type.Optional(
      Type.Object(
        {
          browser: Derived('Browser name from the user agent (Chrome, Mobile Safari…)'),
          browser_version: Derived('Browser version'),
          os: Derived('Operating system (Windows, iOS, Android…)'),
          os_version: Derived('Operating system version'),
          type: Derived('desktop | mobile | tablet | smarttv | console | wearable | embedded'),
          model: Derived('Device model, from the Sec-CH-UA-Model client hint (Pixel 3 XL…)'),
        },
        {
          additionalProperties: false,
          description: 'The device, from device.user_agent and the client hints that are more precise',
        },
      ),
    ),
    bot: Type.Optional(Type.Boolean({ description: 'The user agent is a known crawler or bot' })),
    geo: Type.Optional(
      Type.Object(
        { country: Derived('ISO 3166-1 alpha-2 country of device.ip (IP geolocation by DB-IP)') },
        { additionalProperties: false, description: 'Where device.ip is, before the PII policy' },
      ),
    ),
  },
  { additionalProperties: false, description: 'Derived by the store function (docs/enrichment.md)' },
);
export type Enriched = Static<typeof Enriched>;
