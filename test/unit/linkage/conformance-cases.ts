/**
 * The conformance table: input events, clean and messy, with the fields each platform should
 * receive, written from the platforms' documentation (docs/platforms.md, docs/linkage.md) and
 * their published hashing examples — never copied from our own output. Hashed expectations are
 * given as the documented normalised text (`{ sha256: 'john_smith@gmail.com' }`): the test hashes
 * that text itself, so what is checked is the normalisation.
 */

/** What one field should be: a value, a digest of documented text, a pattern, or nothing. */
export type Expected =
  | string
  | number
  | boolean
  | readonly unknown[]
  | { readonly sha256: string }
  | { readonly sha256List: readonly string[] }
  | { readonly match: string }
  | { readonly absent: true };

/** Per platform: the event is refused (with words from the reason), or these fields are sent. */
export type PlatformExpectation =
  | { readonly refused: string }
  | { readonly fields: Readonly<Record<string, Expected>>; readonly dropped?: string };

export interface ConformanceCase {
  readonly name: string;
  /** The event name (catalogue) and the parts that differ from the base event. */
  readonly event: string;
  readonly context?: Readonly<Record<string, unknown>>;
  readonly data?: Readonly<Record<string, unknown>>;
  readonly meta?: PlatformExpectation;
  readonly ga4?: PlatformExpectation;
  readonly tiktok?: PlatformExpectation;
  /** Google Ads (Data Manager): the first of `events[]`, its conversions routed to action ids. */
  readonly googleAds?: PlatformExpectation;
  /** LinkedIn: the conversion event (the body of a single create), routed to rule ids. */
  readonly linkedin?: PlatformExpectation;
  /** Microsoft UET: the first of `data`. */
  readonly microsoft?: PlatformExpectation;
  /** Reddit v3: the first of `data.events`. */
  readonly reddit?: PlatformExpectation;
}

const ABSENT = { absent: true } as const;
/** Meta's published example: `John_Smith@gmail.com` normalised and hashed. */
const META_JOHN_SMITH = '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f';
/** Meta's published example: US `(650)555-1212` → `16505551212` hashed. */
const META_PHONE_US = 'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176';

const GIFT_CARD = { item_name: 'Gift card', price: 25, quantity: 1 };
const SHOE = { item_id: 'SKU1', item_name: 'Red Shoe', price: 49.9, quantity: 1 };
const SOCKS = { item_id: 'SKU2', item_name: 'Blue Sock', price: 5, quantity: 3 };

export const CASES: readonly ConformanceCase[] = [
  // ---- e-mail -------------------------------------------------------------------------------
  {
    name: "Meta's published e-mail example (trimmed, lowercased)",
    event: 'page_view',
    context: { user: { email: ' John_Smith@gmail.com ' } },
    meta: { fields: { 'user_data.em': [META_JOHN_SMITH] } },
    tiktok: { fields: { 'user.email': { sha256: 'john_smith@gmail.com' } } },
    ga4: { fields: { 'user_data.sha256_email_address': { sha256List: ['john_smith@gmail.com'] } } },
  },
  {
    name: 'gmail address with dots: Google drops them, Meta keeps them',
    event: 'page_view',
    context: { user: { email: 'Jane.Doe@Gmail.com' } },
    meta: { fields: { 'user_data.em': { sha256List: ['jane.doe@gmail.com'] } } },
    ga4: { fields: { 'user_data.sha256_email_address': { sha256List: ['janedoe@gmail.com'] } } },
  },
  {
    name: 'googlemail address with dots',
    event: 'page_view',
    context: { user: { email: 'a.b.c@googlemail.com' } },
    ga4: { fields: { 'user_data.sha256_email_address': { sha256List: ['abc@googlemail.com'] } } },
  },
  {
    name: 'dots kept for other domains at Google',
    event: 'page_view',
    context: { user: { email: 'first.last@example.com' } },
    ga4: { fields: { 'user_data.sha256_email_address': { sha256List: ['first.last@example.com'] } } },
  },
  {
    name: 'an already hashed e-mail is not hashed again',
    event: 'page_view',
    context: { user: { email: META_JOHN_SMITH.toUpperCase() } },
    meta: { fields: { 'user_data.em': [META_JOHN_SMITH] } },
    tiktok: { fields: { 'user.email': META_JOHN_SMITH } },
  },
  // ---- phone --------------------------------------------------------------------------------
  {
    name: "Meta's published US phone example",
    event: 'page_view',
    context: { user: { phone: '(650)555-1212', country: 'US' } },
    meta: { fields: { 'user_data.ph': [META_PHONE_US] } },
    tiktok: { fields: { 'user.phone': { sha256: '+16505551212' } } },
    ga4: { fields: { 'user_data.sha256_phone_number': { sha256List: ['+16505551212'] } } },
  },
  {
    name: 'Italian national number keeps its leading 0 (E.164)',
    event: 'page_view',
    context: { user: { phone: '06 6988 4000', country: 'IT' } },
    meta: { fields: { 'user_data.ph': { sha256List: ['390669884000'] } } },
    tiktok: { fields: { 'user.phone': { sha256: '+390669884000' } } },
  },
  {
    name: 'UK number with the bracketed trunk 0',
    event: 'page_view',
    context: { user: { phone: '+44 (0)20 7946 0958' } },
    meta: { fields: { 'user_data.ph': { sha256List: ['442079460958'] } } },
    tiktok: { fields: { 'user.phone': { sha256: '+442079460958' } } },
  },
  {
    name: 'international 00 prefix',
    event: 'page_view',
    context: { user: { phone: '0044 20 7946 0958' } },
    meta: { fields: { 'user_data.ph': { sha256List: ['442079460958'] } } },
  },
  {
    name: 'German national number with the country given as a name',
    event: 'page_view',
    context: { user: { phone: '030 901820', country: 'Deutschland' } },
    meta: { fields: { 'user_data.ph': { sha256List: ['4930901820'] } } },
  },
  {
    name: 'a short number without a country is not sent',
    event: 'page_view',
    context: { user: { phone: '555-1212' } },
    meta: { fields: { 'user_data.ph': ABSENT } },
    tiktok: { fields: { 'user.phone': ABSENT } },
  },
  // ---- country, region, city, postal code ---------------------------------------------------
  {
    name: 'country as an English name (Meta: "United States" → us)',
    event: 'page_view',
    context: { user: { country: 'United States' } },
    meta: { fields: { 'user_data.country': { sha256List: ['us'] } } },
    ga4: { fields: { 'user_location.country_id': 'US' } },
  },
  {
    name: 'country as a German name',
    event: 'page_view',
    context: { user: { country: 'Deutschland' } },
    meta: { fields: { 'user_data.country': { sha256List: ['de'] } } },
  },
  {
    name: 'country as a French name',
    event: 'page_view',
    context: { user: { country: 'Royaume-Uni' } },
    meta: { fields: { 'user_data.country': { sha256List: ['gb'] } } },
  },
  {
    name: 'country as an upper-case code',
    event: 'page_view',
    context: { user: { country: 'FR' } },
    meta: { fields: { 'user_data.country': { sha256List: ['fr'] } } },
    ga4: { fields: { 'user_location.country_id': 'FR' } },
  },
  {
    name: 'an unknown country is not sent',
    event: 'page_view',
    context: { user: { country: 'Narnia' } },
    meta: { fields: { 'user_data.country': ABSENT } },
  },
  {
    name: 'Japanese postal code without its dash',
    event: 'page_view',
    context: { user: { postal_code: '100-0001', country: 'JP' } },
    meta: { fields: { 'user_data.zp': { sha256List: ['1000001'] } } },
  },
  {
    name: 'US ZIP+4 keeps its first five digits',
    event: 'page_view',
    context: { user: { postal_code: '94025-1234', country: 'US' } },
    meta: { fields: { 'user_data.zp': { sha256List: ['94025'] } } },
  },
  {
    name: 'UK postcode lowercased without spaces',
    event: 'page_view',
    context: { user: { postal_code: 'SW1A 1AA', country: 'GB' } },
    meta: { fields: { 'user_data.zp': { sha256List: ['sw1a1aa'] } } },
  },
  {
    name: 'city and US state name',
    event: 'page_view',
    context: { user: { city: 'Menlo Park', region: 'California', country: 'US' } },
    meta: {
      fields: { 'user_data.ct': { sha256List: ['menlopark'] }, 'user_data.st': { sha256List: ['ca'] } },
    },
  },
  // ---- names and the rest of the customer information ---------------------------------------
  {
    name: 'names keep UTF-8 letters and lose punctuation',
    event: 'page_view',
    context: { user: { first_name: 'Valéry', last_name: "O'Brien" } },
    meta: {
      fields: { 'user_data.fn': { sha256List: ['valéry'] }, 'user_data.ln': { sha256List: ['obrien'] } },
    },
    ga4: {
      fields: {
        'user_data.address[0].sha256_first_name': { sha256: 'valéry' },
        'user_data.address[0].sha256_last_name': { sha256: 'obrien' },
      },
    },
  },
  {
    name: 'gender and date of birth',
    event: 'page_view',
    context: { user: { gender: 'Female', date_of_birth: '1990-02-28' } },
    meta: { fields: { 'user_data.ge': { sha256List: ['f'] }, 'user_data.db': { sha256List: ['19900228'] } } },
  },
  {
    name: 'external id trimmed and hashed',
    event: 'page_view',
    context: { user: { external_id: ' 123456 ' } },
    meta: { fields: { 'user_data.external_id': { sha256List: ['123456'] } } },
    tiktok: { fields: { 'user.external_id': { sha256: '123456' } } },
  },
  {
    name: 'click id becomes fb.1.<ms>.<fbclid>; fbp, IP and user agent are sent as they are',
    event: 'page_view',
    context: { campaign: { fbclid: 'abc', fbp: 'fb.1.1558571054389.1098115397' } },
    meta: {
      fields: {
        'user_data.fbc': `fb.1.${Date.parse('2024-11-16T07:17:34.567Z')}.abc`,
        'user_data.fbp': 'fb.1.1558571054389.1098115397',
        'user_data.client_ip_address': '203.0.113.7',
        'user_data.client_user_agent': 'Mozilla/5.0 (X11; Linux x86_64)',
      },
    },
    tiktok: { fields: { 'user.ip': '203.0.113.7', 'user.user_agent': 'Mozilla/5.0 (X11; Linux x86_64)' } },
    ga4: { fields: { ip_override: '203.0.113.7' } },
  },
  {
    name: 'TikTok _ttp cookie and click id sent as they are',
    event: 'page_view',
    context: { campaign: { ttp: '2Y8Q0ttp', ttclid: 'E.C.P.tt' } },
    tiktok: { fields: { 'user.ttp': '2Y8Q0ttp', 'user.ttclid': 'E.C.P.tt' } },
  },
  {
    name: 'referrer reaches Meta as referrer_url',
    event: 'page_view',
    context: { page: { url: 'https://shop.example/', referrer: 'https://news.example/' } },
    meta: { fields: { referrer_url: 'https://news.example/', event_source_url: 'https://shop.example/' } },
    tiktok: { fields: { 'page.referrer': 'https://news.example/' } },
    ga4: { fields: { 'events[0].params.page_referrer': 'https://news.example/' } },
  },
  // ---- items and value ---------------------------------------------------------------------
  {
    name: 'a gift card line without id costs that line, not the purchase',
    event: 'purchase',
    data: { transaction_id: 'T-1', value: 74.9, currency: 'EUR', items: [SHOE, GIFT_CARD] },
    meta: {
      fields: {
        'custom_data.contents': [{ id: 'SKU1', quantity: 1, item_price: 49.9 }],
        'custom_data.value': 74.9,
        'custom_data.currency': 'EUR',
      },
      dropped: 'contents[1]',
    },
    // TikTok needs each content's content_id for catalogue ads and ROAS
    // (ads.tiktok.com/help/article/about-parameters), not for the event: the line is left out, said so.
    tiktok: {
      fields: {
        'properties.content_ids': ['SKU1'],
        'properties.value': 74.9,
        'properties.currency': 'EUR',
      },
      dropped: 'contents[1]',
    },
    ga4: { fields: { 'events[0].params.items[1].item_name': 'Gift card' } },
  },
  {
    name: 'a purchase without currency is refused by Meta (value and currency required)',
    event: 'purchase',
    data: { transaction_id: 'T-2', value: 10, items: [SHOE] },
    meta: { refused: 'custom_data.currency is required for Purchase' },
    ga4: { fields: { 'events[0].params.value': ABSENT }, dropped: 'no currency' },
  },
  {
    name: 'value without currency is left out elsewhere',
    event: 'add_to_cart',
    data: { value: 49.9, items: [SHOE] },
    meta: { fields: { 'custom_data.value': ABSENT }, dropped: 'no currency' },
    tiktok: { fields: { 'properties.value': ABSENT }, dropped: 'no currency' },
    ga4: { fields: { 'events[0].params.value': ABSENT }, dropped: 'no currency' },
  },
  {
    name: 'an item without quantity is one item',
    event: 'add_to_cart',
    data: { value: 49.9, currency: 'USD', items: [{ item_id: 'SKU1', price: 49.9 }] },
    meta: { fields: { 'custom_data.contents': [{ id: 'SKU1', quantity: 1, item_price: 49.9 }] } },
  },
  {
    name: 'checkout: num_items is the number of items bought; content_ids list the ids',
    event: 'begin_checkout',
    data: { value: 64.9, currency: 'USD', items: [SHOE, SOCKS] },
    meta: { fields: { 'custom_data.num_items': 4, 'custom_data.content_ids': ['SKU1', 'SKU2'] } },
    tiktok: { fields: { 'properties.num_items': 4, 'properties.content_ids': ['SKU1', 'SKU2'] } },
  },
  {
    name: 'GA4 item fields beyond the basic six',
    event: 'purchase',
    data: {
      transaction_id: 'T-3',
      value: 40,
      currency: 'USD',
      items: [
        {
          item_id: 'SKU9',
          item_variant: 'green',
          item_category2: 'adult',
          discount: 2.5,
          index: 0,
          affiliation: 'Store',
        },
      ],
    },
    ga4: {
      fields: {
        'events[0].params.items[0].item_variant': 'green',
        'events[0].params.items[0].item_category2': 'adult',
        'events[0].params.items[0].discount': 2.5,
        'events[0].params.items[0].index': 0,
        'events[0].params.items[0].affiliation': 'Store',
      },
    },
  },
  {
    name: 'view_content with content_type product reaches Meta and TikTok as content_type',
    event: 'view_content',
    data: { content_id: 'SKU1', content_type: 'product', value: 49.9, currency: 'USD' },
    meta: { fields: { 'custom_data.content_type': 'product', 'custom_data.content_ids': ['SKU1'] } },
    tiktok: { fields: { 'properties.content_type': 'product', 'properties.content_ids': ['SKU1'] } },
    ga4: { fields: { 'events[0].name': 'view_item', 'events[0].params.items[0].item_id': 'SKU1' } },
  },
  {
    name: 'a free-text content_type is not a Meta content_type',
    event: 'view_content',
    data: { content_id: 'A-1', content_type: 'article' },
    meta: { fields: { 'custom_data.content_type': ABSENT, 'custom_data.content_category': 'article' } },
    tiktok: { fields: { 'properties.content_type': ABSENT } },
  },
  // ---- action_source and matching baseline -------------------------------------------------
  {
    name: 'an event identified by its user agent alone is below Meta’s baseline',
    event: 'page_view',
    context: { device: { ip: undefined } },
    meta: { refused: "below Meta's matching baseline" },
  },
  {
    name: 'a backend purchase without a page is not a website event',
    event: 'purchase',
    context: { page: undefined, device: undefined, user: { email: 'a@example.com' } },
    data: { transaction_id: 'T-4', value: 10, currency: 'EUR' },
    meta: { fields: { action_source: 'other', event_source_url: ABSENT } },
  },
  {
    name: 'the event says where it happened (phone_call)',
    event: 'purchase',
    context: { page: undefined, user: { email: 'a@example.com' } },
    data: { transaction_id: 'T-5', value: 10, currency: 'EUR', action_source: 'phone_call' },
    meta: { fields: { action_source: 'phone_call' } },
  },
  {
    name: 'business_messaging is a documented action_source',
    event: 'lead',
    data: { action_source: 'business_messaging' },
    meta: { fields: { action_source: 'business_messaging' } },
  },
  {
    name: 'an undocumented action_source falls back to the page (website)',
    event: 'lead',
    data: { action_source: 'shop' },
    meta: { fields: { action_source: 'website' } },
  },
  {
    name: 'an event older than 7 days is refused by Meta',
    event: 'page_view',
    context: { event_time: '2024-11-01T00:00:00.000Z' },
    meta: { refused: 'older than 7 days' },
  },
  // ---- GA4 specifics ------------------------------------------------------------------------
  {
    name: 'GA4 parameter over 100 characters is cut, the event kept',
    event: 'search',
    data: { search_term: 'x'.repeat(150) },
    ga4: { fields: { 'events[0].params.search_term': 'x'.repeat(100) }, dropped: 'search_term' },
    meta: { fields: { 'custom_data.search_string': 'x'.repeat(150) } },
  },
  {
    name: 'an event in the future gets no timestamp_micros at GA4',
    event: 'page_view',
    context: { event_time: '2024-11-16T20:00:00.000Z' },
    ga4: { fields: { timestamp_micros: ABSENT }, dropped: 'timestamp_micros' },
  },
  {
    name: 'a past event keeps its time in microseconds',
    event: 'page_view',
    ga4: { fields: { timestamp_micros: Date.parse('2024-11-16T07:17:34.567Z') * 1000 } },
  },
  {
    name: 'GA4 client_id is the device id',
    event: 'page_view',
    context: { anonymous_id: '1234567.7654321', user_id: 'u-1' },
    ga4: { fields: { client_id: '1234567.7654321', user_id: 'u-1' } },
  },
  {
    name: 'a backend event with a user id only: client_id is not the user id',
    event: 'sign_up',
    context: { anonymous_id: undefined, user_id: 'u-42' },
    ga4: { fields: { client_id: { match: '^[0-9]+\\.[0-9]+$' }, user_id: 'u-42' } },
  },
  {
    name: 'page_view names at each platform',
    event: 'page_view',
    meta: { fields: { event_name: 'PageView', action_source: 'website' } },
    tiktok: { fields: { event: 'PageView' } },
    ga4: { fields: { 'events[0].name': 'page_view' } },
  },
  // ---- consent ------------------------------------------------------------------------------
  {
    name: 'ad personalization denied: Meta opt_out and LDU, TikTok limited data use, GA4 consent',
    event: 'page_view',
    context: { consent: { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'denied' } },
    meta: {
      fields: {
        opt_out: true,
        data_processing_options: ['LDU'],
        data_processing_options_country: 0,
        data_processing_options_state: 0,
      },
    },
    tiktok: { fields: { limited_data_use: true } },
    ga4: { fields: { 'consent.ad_personalization': 'DENIED', 'consent.ad_user_data': 'GRANTED' } },
  },
  {
    name: 'everything granted: no privacy flags',
    event: 'page_view',
    context: { consent: { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted' } },
    meta: { fields: { opt_out: ABSENT, data_processing_options: ABSENT } },
    tiktok: { fields: { limited_data_use: ABSENT } },
  },
  {
    name: 'ad_user_data denied: no user-provided data at GA4',
    event: 'page_view',
    context: {
      user: { email: 'a@example.com' },
      consent: { analytics: 'granted', ad_user_data: 'denied' },
    },
    ga4: { fields: { user_data: ABSENT, 'consent.ad_user_data': 'DENIED' }, dropped: 'ad_user_data' },
  },
  // ---- Google Ads (Data Manager API): its own normalisation, the briefing's published examples ----
  {
    name: "Data Manager's gmail example: dots and +tag removed at Google Ads; Meta keeps both, GA4 the plus",
    event: 'lead',
    context: { user: { email: 'cloudy.sanfrancisco+shopping@gmail.com' } },
    googleAds: {
      fields: { 'userData.userIdentifiers[0].emailAddress': { sha256: 'cloudysanfrancisco@gmail.com' } },
    },
    meta: { fields: { 'user_data.em': { sha256List: ['cloudy.sanfrancisco+shopping@gmail.com'] } } },
    ga4: {
      fields: { 'user_data.sha256_email_address': { sha256List: ['cloudysanfrancisco+shopping@gmail.com'] } },
    },
  },
  {
    name: "Data Manager's example for other domains: lowercased, dots and plus kept",
    event: 'lead',
    context: { user: { email: 'User.Name+NYC@Example.com' } },
    googleAds: {
      fields: { 'userData.userIdentifiers[0].emailAddress': { sha256: 'user.name+nyc@example.com' } },
    },
  },
  {
    name: "Data Manager's phone example: US (800)555-0100 is +18005550100 before hashing",
    event: 'lead',
    context: { user: { phone: '(800)555-0100', country: 'US' } },
    googleAds: { fields: { 'userData.userIdentifiers[0].phoneNumber': { sha256: '+18005550100' } } },
  },
  {
    name: 'Google Ads: googlemail with a +tag, whitespace inside the address removed',
    event: 'lead',
    context: { user: { email: ' J.Doe+news @GoogleMail.com' } },
    googleAds: { fields: { 'userData.userIdentifiers[0].emailAddress': { sha256: 'jdoe@googlemail.com' } } },
  },
  {
    name: 'Google Ads: an already hashed e-mail is sent as it is',
    event: 'lead',
    context: { user: { email: META_JOHN_SMITH.toUpperCase() } },
    googleAds: { fields: { 'userData.userIdentifiers[0].emailAddress': META_JOHN_SMITH } },
  },
  {
    name: 'Google Ads: each identifier its own UserIdentifier; an address with all four parts, region and postal code in clear',
    event: 'lead',
    context: {
      user: {
        email: 'a@example.com',
        phone: '+33 6 12 34 56 78',
        first_name: ' Mrs. Marie-Claire ',
        last_name: "O'Neil",
        country: 'France',
        postal_code: ' 75001 ',
      },
    },
    googleAds: {
      fields: {
        'userData.userIdentifiers[0].emailAddress': { sha256: 'a@example.com' },
        'userData.userIdentifiers[1].phoneNumber': { sha256: '+33612345678' },
        'userData.userIdentifiers[2].address.givenName': { sha256: 'marieclaire' },
        'userData.userIdentifiers[2].address.familyName': { sha256: 'oneil' },
        'userData.userIdentifiers[2].address.regionCode': 'FR',
        'userData.userIdentifiers[2].address.postalCode': '75001',
        encoding: 'HEX',
      },
    },
  },
  {
    name: 'Google Ads: an address without its postal code is not sent (all four parts are required)',
    event: 'lead',
    context: { user: { email: 'a@example.com', first_name: 'Ann', last_name: 'Lee', country: 'US' } },
    googleAds: {
      fields: {
        'userData.userIdentifiers[0].emailAddress': { sha256: 'a@example.com' },
        'userData.userIdentifiers[1]': ABSENT,
      },
    },
  },
  {
    name: 'Google Ads purchase: order id as transactionId, value, currency, cart items, routed to its conversion action',
    event: 'purchase',
    context: { campaign: { gclid: 'Cj0KCQ-test' } },
    data: {
      transaction_id: 'T-1001',
      value: '59.9',
      currency: 'eur',
      items: [SHOE, { ...SOCKS, quantity: 2 }],
    },
    googleAds: {
      fields: {
        destinationReferences: ['111'],
        transactionId: 'T-1001',
        eventTimestamp: '2024-11-16T07:17:34.567Z',
        conversionValue: 59.9,
        currency: 'EUR',
        'adIdentifiers.gclid': 'Cj0KCQ-test',
        'cartData.items': [
          { merchantProductId: 'SKU1', quantity: '1', unitPrice: 49.9 },
          { merchantProductId: 'SKU2', quantity: '2', unitPrice: 5 },
        ],
        eventSource: 'WEB',
        'eventDeviceInfo.userAgent': 'Mozilla/5.0 (X11; Linux x86_64)',
        'eventDeviceInfo.ipAddress': '203.0.113.7',
        'adIdentifiers.landingPageDeviceInfo.ipAddress': '203.0.113.7',
      },
    },
  },
  {
    name: 'Google Ads lead: the event id is the transactionId',
    event: 'lead',
    context: { campaign: { gbraid: 'GB-1' } },
    googleAds: {
      fields: { transactionId: 'evt-lead', 'adIdentifiers.gbraid': 'GB-1', destinationReferences: ['222'] },
    },
  },
  {
    name: 'Google Ads: one click id per conversion, the gclid kept over a wbraid',
    event: 'lead',
    context: { campaign: { gclid: 'G-1', wbraid: 'WB-1' } },
    googleAds: {
      fields: { 'adIdentifiers.gclid': 'G-1', 'adIdentifiers.wbraid': ABSENT },
      dropped: 'adIdentifiers.wbraid',
    },
  },
  {
    name: 'Google Ads: nothing to match a conversion by (no click id, no user data) is refused',
    event: 'lead',
    googleAds: { refused: 'nothing to match the conversion by' },
  },
  {
    name: 'Google Ads: consent as CONSENT_GRANTED / CONSENT_DENIED',
    event: 'lead',
    context: {
      campaign: { gclid: 'G-1' },
      consent: { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'denied' },
    },
    googleAds: {
      fields: { 'consent.adUserData': 'CONSENT_GRANTED', 'consent.adPersonalization': 'CONSENT_DENIED' },
    },
  },
  {
    name: 'Google Ads: ad_user_data denied leaves the hashed user data out',
    event: 'lead',
    context: {
      user: { email: 'a@example.com' },
      campaign: { gclid: 'G-1' },
      consent: { ads: 'granted', ad_user_data: 'denied' },
    },
    googleAds: {
      fields: { userData: ABSENT, 'consent.adUserData': 'CONSENT_DENIED' },
      dropped: 'ad_user_data',
    },
  },
  {
    // A destination whose own consent list lets the event through is still told the verdict.
    name: 'Google Ads: an opt-out of sale (US Privacy 1YYN) beside grants: both DENIED, no hashed user data',
    event: 'lead',
    context: {
      user: { email: 'a@example.com' },
      campaign: { gclid: 'G-1' },
      consent: { ads: 'granted', ad_user_data: 'granted', ad_personalization: 'granted', us_privacy: '1YYN' },
    },
    googleAds: {
      fields: {
        userData: ABSENT,
        'consent.adUserData': 'CONSENT_DENIED',
        'consent.adPersonalization': 'CONSENT_DENIED',
      },
      dropped: 'US Privacy opt-out',
    },
  },
  {
    name: 'Google Ads: a backend event without a page takes its action_source as eventSource',
    event: 'lead',
    context: { page: undefined, action_source: 'phone_call', campaign: { gclid: 'G-1' } },
    googleAds: { fields: { eventSource: 'PHONE' } },
  },
  // ---- LinkedIn, Microsoft, Reddit (docs/platforms.md §7-9) --------------------------------
  {
    name: "Reddit's published e-mail example: +alias and every non-alphanumeric before the @ go, for any domain",
    event: 'lead',
    context: { user: { email: 'Al.ice$+Apple@Example.Com' } },
    // Reddit's help page: → alice@example.com → ff8d9819…d976 (the test hashes the text itself).
    reddit: { fields: { 'user.email': { sha256: 'alice@example.com' } } },
    // LinkedIn and Microsoft only trim and lower-case.
    linkedin: { fields: { 'user.userIds[0].idValue': { sha256: 'al.ice$+apple@example.com' } } },
    microsoft: { fields: { 'userData.em': { sha256: 'al.ice$+apple@example.com' } } },
  },
  {
    name: "Meta's published e-mail example at LinkedIn, Microsoft and Reddit",
    event: 'lead',
    context: { user: { email: ' John_Smith@gmail.com ' } },
    linkedin: {
      fields: { 'user.userIds[0].idType': 'SHA256_EMAIL', 'user.userIds[0].idValue': META_JOHN_SMITH },
    },
    microsoft: { fields: { 'userData.em': META_JOHN_SMITH } },
    // Reddit's rule also drops the underscore.
    reddit: { fields: { 'user.email': { sha256: 'johnsmith@gmail.com' } } },
  },
  {
    name: 'Phone in E.164 with its + for Microsoft and Reddit; LinkedIn takes no phone',
    event: 'lead',
    context: { user: { email: 'a@example.com', phone: '+44 20 7946 0000' } },
    microsoft: { fields: { 'userData.ph': { sha256: '+442079460000' } } },
    reddit: { fields: { 'user.phone_number': { sha256: '+442079460000' } } },
    linkedin: { fields: { 'user.userInfo.phone': ABSENT } },
  },
  {
    name: 'Times: LinkedIn and Reddit in milliseconds, Microsoft in seconds',
    event: 'purchase',
    context: { user: { email: 'a@example.com' } },
    data: { transaction_id: 'T-1', value: 118, currency: 'usd', items: [SHOE] },
    linkedin: {
      fields: {
        conversion: 'urn:lla:llaPartnerConversion:111',
        conversionHappenedAt: 1731741454567,
        // LinkedIn's amount is a string.
        'conversionValue.amount': '118',
        'conversionValue.currencyCode': 'USD',
      },
    },
    microsoft: { fields: { eventTime: 1731741454, eventType: 'custom', eventName: 'purchase' } },
    reddit: { fields: { event_at: 1731741454567, 'type.tracking_type': 'PURCHASE', 'metadata.value': 118 } },
  },
  {
    name: 'Click ids and cookies travel in clear: li_fat_id, msclkid, rdt_cid and _rdt_uuid',
    event: 'lead',
    context: { campaign: { li_fat_id: 'LI-1', msclkid: 'MS-1', rdt_cid: 'RD-1', rdt_uuid: 'UU-1' } },
    linkedin: {
      fields: {
        'user.userIds[0].idType': 'LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID',
        'user.userIds[0].idValue': 'LI-1',
      },
    },
    microsoft: { fields: { 'userData.msclkid': 'MS-1' } },
    reddit: { fields: { click_id: 'RD-1', 'user.uuid': 'UU-1' } },
  },
  {
    name: 'Event ids de-duplicate with each pixel: eventId, eventId, metadata.conversion_id',
    event: 'lead',
    context: { user: { email: 'a@example.com' } },
    linkedin: { fields: { eventId: 'evt-lead' } },
    microsoft: { fields: { eventId: 'evt-lead' } },
    reddit: { fields: { 'metadata.conversion_id': 'evt-lead' } },
  },
  {
    name: 'A page view is a pageLoad at Microsoft and PAGE_VISIT at Reddit',
    event: 'page_view',
    context: { user: { email: 'a@example.com' } },
    microsoft: { fields: { eventType: 'pageLoad', eventName: ABSENT } },
    reddit: { fields: { 'type.tracking_type': 'PAGE_VISIT', action_source: 'WEBSITE' } },
  },
  {
    name: 'Too old: LinkedIn refuses over 90 days, Reddit over 7',
    event: 'lead',
    context: { event_time: '2024-08-01T00:00:00.000Z', user: { email: 'a@example.com' } },
    linkedin: { refused: 'more than 90 days old' },
    reddit: { refused: 'more than 7 days old' },
  },
  {
    name: 'Nothing to match: each platform refuses the event alone',
    event: 'lead',
    context: { device: undefined, anonymous_id: undefined },
    linkedin: { refused: 'nothing LinkedIn can match' },
    microsoft: { refused: 'nothing Microsoft can match' },
    reddit: { refused: 'nothing Reddit can match' },
  },
];
