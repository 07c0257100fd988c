/**
 * Match quality (docs/console.md#match-quality): which kinds of identifier a platform request
 * carried, by name, never by value, for the ledger's `identifiers` column. Read off the request
 * as it is sent, so what a mapping dropped (pre-hashed e-mails a target would not take, a click
 * id missing from the context) shows as missing. One table of the platforms' field names
 * (docs/platforms.md) to the kinds they match on, so no platform folder has to list them again.
 * Pure.
 */

/** The kinds, by the request field names that carry them (lower-cased). */
const KINDS: Readonly<Record<string, string>> = Object.freeze({
  em: 'email',
  email: 'email',
  emails: 'email',
  email_address: 'email',
  hashed_email: 'email',
  sha256_email_address: 'email',
  hashedemail: 'email',
  hashed_email_address: 'email',
  ph: 'phone',
  phone: 'phone',
  phones: 'phone',
  phone_number: 'phone',
  sha256_phone_number: 'phone',
  hashed_phone_number: 'phone',
  hashedphonenumber: 'phone',
  external_id: 'external_id',
  user_id: 'external_id',
  fn: 'name',
  ln: 'name',
  first_name: 'name',
  last_name: 'name',
  sha256_first_name: 'name',
  sha256_last_name: 'name',
  fbc: 'fbc',
  fbclid: 'fbc',
  fbp: 'fbp',
  gclid: 'gclid',
  gbraid: 'gbraid',
  wbraid: 'wbraid',
  ttclid: 'ttclid',
  ttp: 'ttp',
  client_id: 'client_id',
  client_ip_address: 'ip',
  ip: 'ip',
  ip_address: 'ip',
  client_user_agent: 'user_agent',
  user_agent: 'user_agent',
  // The later platforms' click ids, cookies and device ids (docs/platforms.md §7-12).
  msclkid: 'msclkid',
  twclid: 'twclid',
  sc_click_id: 'sccid',
  li_fat_id: 'li_fat_id',
  click_id: 'click_id',
  sc_cookie1: 'cookie',
  uuid: 'cookie',
  hashed_maids: 'mobile_ad_id',
  madid: 'mobile_ad_id',
  // The catalogue destinations' (Segment actions, docs/catalog-destinations.md) person ids.
  userid: 'external_id',
  external_user_id: 'external_id',
  anonymous_id: 'anonymous_id',
  anonymousid: 'anonymous_id',
  distinct_id: 'anonymous_id',
  device_id: 'anonymous_id',
});

/**
 * LinkedIn names each identifier in a `{idType, idValue}` pair rather than by its key: the kinds
 * of its id types.
 */
const ID_TYPES: Readonly<Record<string, string>> = Object.freeze({
  SHA256_EMAIL: 'email',
  LINKEDIN_FIRST_PARTY_ADS_TRACKING_UUID: 'li_fat_id',
  ACXIOM_ID: 'external_id',
  ORACLE_MOAT_ID: 'external_id',
});

/** How deep and wide the walk goes: a request's identifiers sit near its top. */
const MAX_DEPTH = 6;
const MAX_ITEMS = 20;

const present = (v: unknown): boolean =>
  v !== null &&
  v !== undefined &&
  v !== '' &&
  !(Array.isArray(v) && v.every((x) => x === null || x === undefined || x === ''));

/**
 * The identifier kinds a request body carries with a value, sorted: `email`, `phone`,
 * `external_id`, `name`, `fbc`, `fbp`, `gclid`, `gbraid`, `wbraid`, `ttclid`, `ttp`, `client_id`,
 * `ip`, `user_agent`, `msclkid`, `twclid`, `sccid`, `li_fat_id`, `click_id` (Pinterest's epik,
 * Reddit's rdt_cid), `cookie`, `mobile_ad_id`, `anonymous_id` (a catalogue destination's device or
 * anonymous id: Mixpanel's distinct_id, Amplitude's device_id). A string body is read as JSON, else as a form; anything else as nothing.
 */
export function requestIdentifiers(body: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const item of v.slice(0, MAX_ITEMS)) walk(item, depth + 1);
      return;
    }
    const pair = v as { idType?: unknown; idValue?: unknown };
    if (typeof pair.idType === 'string' && present(pair.idValue)) {
      const kind = ID_TYPES[pair.idType];
      if (kind) found.add(kind);
      return;
    }
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      const kind = KINDS[key.toLowerCase()];
      if (kind && present(value) && typeof value !== 'object') found.add(kind);
      else if (kind && Array.isArray(value) && present(value)) found.add(kind);
      else walk(value, depth + 1);
    }
  };
  walk(typeof body === 'string' ? parsedText(body) : body, 0);
  return [...found].sort();
}

function parsedText(text: string): unknown {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.parse(t);
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}
