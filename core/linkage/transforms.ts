/**
 * The named value transforms of the mapping language. Each is pure and total: a value it
 * cannot make sense of becomes `undefined` (the field is then left out), never an exception,
 * so one odd field does not stop an event. Normalisation follows the platforms' own rules
 * (docs/platforms.md: Meta's customer-information parameters and SDK normalisers), not a peer's.
 */
import { hash } from 'node:crypto';
// The library's own entry (index), not its Node entry, which would register every language.
import countries from 'i18n-iso-countries/index.js';
import de from 'i18n-iso-countries/langs/de.json' with { type: 'json' };
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import es from 'i18n-iso-countries/langs/es.json' with { type: 'json' };
import fr from 'i18n-iso-countries/langs/fr.json' with { type: 'json' };
import it from 'i18n-iso-countries/langs/it.json' with { type: 'json' };
import nl from 'i18n-iso-countries/langs/nl.json' with { type: 'json' };
import pt from 'i18n-iso-countries/langs/pt.json' with { type: 'json' };
import { type CountryCode, parsePhoneNumberFromString } from 'libphonenumber-js';

const HASH = /^[a-f0-9]{64}$/i;

/** True when a string already is a SHA-256 hex digest (so hashing it again would break matching). */
export function isSha256(value: string): boolean {
  return HASH.test(value);
}

/** Lowercase hex SHA-256 of the UTF-8 string; values that already are a digest pass through (lowercased). */
export function sha256(value: string): string {
  if (isSha256(value)) return value.toLowerCase();
  return hash('sha256', value, 'hex');
}

/** The result of phone normalisation: digits with the country code, or nothing. */
export type PhoneFormat = 'e164' | 'digits';

/**
 * Normalises a phone number to digits with the country code (Meta: `16505551212`) or to
 * E.164 (`+16505551212`, TikTok), with libphonenumber-js: an international prefix (`+`, `00`)
 * wins; otherwise the number is read as a national number of `country` (an ISO code or a
 * country name), so each country's own trunk prefix rules apply (Italy keeps its leading 0,
 * `+44 (0)20 …` drops the bracketed one). A number that cannot be a phone number of that
 * country is dropped rather than sent wrong.
 */
export function phone(value: string, format: PhoneFormat, countryValue?: string): string | undefined {
  const trimmed = value.trim().replace(/^00/, '+');
  const region = countryValue ? country(countryValue)?.toUpperCase() : undefined;
  let parsed = parsePhoneNumberFromString(trimmed, region as CountryCode | undefined);
  if (!parsed && region === undefined) {
    // Without a country we can only trust a number long enough to carry its own code.
    const digits = trimmed.replace(/\D/g, '');
    if (digits.length >= 11) parsed = parsePhoneNumberFromString(`+${digits}`);
  }
  if (!parsed?.isPossible()) return undefined;
  return format === 'e164' ? parsed.number : parsed.number.slice(1);
}

/**
 * E-mail as Google's user-provided data wants it before hashing: trimmed, lowercased, and for
 * gmail.com and googlemail.com addresses without the dots before the `@`.
 */
export function googleEmail(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  const at = v.lastIndexOf('@');
  if (at <= 0) return v === '' ? undefined : v;
  const domain = v.slice(at + 1);
  if (domain !== 'gmail.com' && domain !== 'googlemail.com') return v;
  return `${v.slice(0, at).replace(/\./g, '')}@${domain}`;
}

/**
 * E-mail as the Data Manager API (Google Ads) wants it before hashing: all whitespace removed,
 * lowercased, and for gmail.com and googlemail.com only, the dots of the local part and any
 * `+tag` removed (`cloudy.sanfrancisco+shopping@gmail.com` → `cloudysanfrancisco@gmail.com`);
 * other domains keep both (docs/platforms.md §6). Stricter than `googleEmail`,
 * which follows GA4's text (dots only).
 */
export function googleAdsEmail(value: string): string | undefined {
  const v = value.replace(/\s+/g, '').toLowerCase();
  const at = v.lastIndexOf('@');
  if (at <= 0) return v === '' ? undefined : v;
  const domain = v.slice(at + 1);
  if (domain !== 'gmail.com' && domain !== 'googlemail.com') return v;
  const local = v.slice(0, at).split('+')[0]?.replace(/\./g, '') ?? '';
  return local === '' ? undefined : `${local}@${domain}`;
}

/** Titles and generational suffixes Google asks to leave out of a name before hashing. */
const NAME_AFFIXES = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'jr', 'sr', 'ii', 'iii', 'iv']);

/**
 * A given or family name as the Data Manager API wants it before hashing: lowercase, without
 * punctuation, prefixes or suffixes (`Mrs.`, `Jr.`), whitespace trimmed and single between words
 * (`Mary-Ann  O'Neil Jr.` → `maryann oneil`). Unlike `name` (Meta), spaces between words stay.
 */
export function googleAdsName(value: string): string | undefined {
  const words = value
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\s]/gu, '')
    .split(/\s+/)
    .filter((w) => w !== '' && !NAME_AFFIXES.has(w));
  return words.length === 0 ? undefined : words.join(' ');
}

/**
 * A stable stand-in for a device id, derived from another id (a signed-in user's id) so it never
 * carries that id itself: two decimal numbers from its SHA-256, in the `<n>.<n>` shape of a
 * browser client id. The same input always gives the same id.
 */
export function pseudonymousId(value: string): string | undefined {
  const v = value.trim();
  if (v === '') return undefined;
  const h = hash('sha256', `eventbus-client-id:${v}`, 'hex');
  return `${Number.parseInt(h.slice(0, 8), 16)}.${Number.parseInt(h.slice(8, 16), 16)}`;
}

/** The sum of the numbers in a list (nested lists flattened); nothing when none is a number. */
export function sum(value: unknown): number | undefined {
  const flat = Array.isArray(value) ? value.flat(Number.POSITIVE_INFINITY) : [value];
  const numbers = flat.map(toNumber).filter((n) => n !== undefined);
  return numbers.length === 0 ? undefined : numbers.reduce((a, b) => a + b, 0);
}

/** Names (first/last): lowercase, punctuation and digits removed, letters of any script kept (`Valéry`→`valéry`). */
export function personName(value: string): string | undefined {
  const out = value
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}]/gu, '');
  return out === '' ? undefined : out;
}

/** City: lowercase, no spaces, punctuation or digits (`Menlo Park`→`menlopark`). */
export function city(value: string): string | undefined {
  return personName(value);
}

const US_STATES: Readonly<Record<string, string>> = Object.freeze({
  alabama: 'al',
  alaska: 'ak',
  arizona: 'az',
  arkansas: 'ar',
  california: 'ca',
  colorado: 'co',
  connecticut: 'ct',
  delaware: 'de',
  districtofcolumbia: 'dc',
  florida: 'fl',
  georgia: 'ga',
  hawaii: 'hi',
  idaho: 'id',
  illinois: 'il',
  indiana: 'in',
  iowa: 'ia',
  kansas: 'ks',
  kentucky: 'ky',
  louisiana: 'la',
  maine: 'me',
  maryland: 'md',
  massachusetts: 'ma',
  michigan: 'mi',
  minnesota: 'mn',
  mississippi: 'ms',
  missouri: 'mo',
  montana: 'mt',
  nebraska: 'ne',
  nevada: 'nv',
  newhampshire: 'nh',
  newjersey: 'nj',
  newmexico: 'nm',
  newyork: 'ny',
  northcarolina: 'nc',
  northdakota: 'nd',
  ohio: 'oh',
  oklahoma: 'ok',
  oregon: 'or',
  pennsylvania: 'pa',
  rhodeisland: 'ri',
  southcarolina: 'sc',
  southdakota: 'sd',
  tennessee: 'tn',
  texas: 'tx',
  utah: 'ut',
  vermont: 'vt',
  virginia: 'va',
  washington: 'wa',
  westvirginia: 'wv',
  wisconsin: 'wi',
  wyoming: 'wy',
});

/**
 * State/region: Meta wants the 2-letter code, lowercase. US state names are translated;
 * other values keep their letters only (a region code such as `BY` becomes `by`).
 */
export function state(value: string): string | undefined {
  const letters = value.toLowerCase().replace(/[^\p{L}]/gu, '');
  if (letters === '') return undefined;
  return US_STATES[letters] ?? letters;
}

/**
 * Postal code as Meta documents it: lowercase, no spaces and no dash (JP `100-0001` → `1000001`);
 * US codes keep their first 5 digits (ZIP+4 `94025-1234` → `94025`).
 */
export function zip(value: string, countryValue?: string): string | undefined {
  const lower = value.toLowerCase().replace(/\s+/g, '');
  if (lower === '') return undefined;
  if (countryValue !== undefined && country(countryValue) === 'us') {
    const digits = (lower.split('-')[0] ?? '').replace(/\D/g, '');
    return digits.length >= 5 ? digits.slice(0, 5) : undefined;
  }
  const compact = lower.replace(/-/g, '');
  return compact === '' ? undefined : compact;
}

/** Names for parts named for the whole, which the country list does not carry. */
const COUNTRY_ALIASES: Readonly<Record<string, string>> = {
  england: 'gb',
  scotland: 'gb',
  wales: 'gb',
  northernireland: 'gb',
  holland: 'nl',
};
/** Languages whose country names are recognised (besides the codes themselves): registered once. */
const COUNTRY_NAME_LOCALES = [en, de, fr, es, it, nl, pt];
let countriesByName: Map<string, string> | undefined;

const nameKey = (s: string) =>
  s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Country names (official and common aliases such as `USA`, `UK`) in several languages → ISO code,
 * from i18n-iso-countries, built once.
 */
function countryNames(): Map<string, string> {
  if (countriesByName) return countriesByName;
  const map = new Map<string, string>();
  for (const locale of COUNTRY_NAME_LOCALES) {
    countries.registerLocale(locale);
    for (const [code, names] of Object.entries(countries.getNames(locale.locale, { select: 'all' }))) {
      for (const name of names) if (!map.has(nameKey(name))) map.set(nameKey(name), code.toLowerCase());
    }
  }
  countriesByName = map;
  return map;
}

/**
 * Country: ISO 3166-1 alpha-2, lowercase. An ISO code is taken as it is; a name in one of several
 * languages ("United States", "Deutschland", "Royaume-Uni", "UK") becomes its code, as Meta's own
 * example does; anything else is dropped.
 */
export function country(value: string): string | undefined {
  const k = nameKey(value);
  if (COUNTRY_ALIASES[k]) return COUNTRY_ALIASES[k];
  const v = value.trim().toLowerCase();
  if (/^[a-z]{2}$/.test(v) && countries.isValid(v.toUpperCase())) return v;
  return countryNames().get(k);
}

/** Gender: `f` or `m` (Meta's SDK maps female/male); other values are dropped. */
export function gender(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'f' || v === 'female' || v === 'woman') return 'f';
  if (v === 'm' || v === 'male' || v === 'man') return 'm';
  return undefined;
}

/** Date of birth `YYYY-MM-DD` (or already `YYYYMMDD`) → `YYYYMMDD`. */
export function dateOfBirth(value: string): string | undefined {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(value.trim());
  return m ? `${m[1]}${m[2]}${m[3]}` : undefined;
}

/** Milliseconds since the epoch from RFC 3339 text or an epoch-milliseconds number. */
function epochMillis(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    if (/^\d+$/.test(value.trim())) return Number(value.trim());
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/** Unix seconds (integer) from RFC 3339 or epoch milliseconds. */
export function unixSeconds(value: unknown): number | undefined {
  const ms = epochMillis(value);
  return ms === undefined ? undefined : Math.floor(ms / 1000);
}

/** Unix microseconds (integer) from RFC 3339 or epoch milliseconds. */
export function unixMicros(value: unknown): number | undefined {
  const ms = epochMillis(value);
  return ms === undefined ? undefined : Math.floor(ms) * 1000;
}

/** Unix milliseconds (integer) from RFC 3339 or epoch milliseconds (LinkedIn, Reddit). */
export function unixMillis(value: unknown): number | undefined {
  const ms = epochMillis(value);
  return ms === undefined ? undefined : Math.floor(ms);
}

/**
 * E-mail as Reddit matches it before hashing, for every domain: trimmed, lowercased, the local
 * part cut at its first `+` and left with letters and digits only (`Al.ice$+Apple@Example.Com` →
 * `alice@example.com`; docs/platforms.md, Reddit).
 */
export function redditEmail(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  const at = v.lastIndexOf('@');
  if (at <= 0) return v === '' ? undefined : v;
  const local = (v.slice(0, at).split('+')[0] ?? '').replace(/[^\p{L}\p{N}]/gu, '');
  return local === '' ? undefined : `${local}@${v.slice(at + 1)}`;
}

/** A finite number from a number or numeric text (`"49.90"`); anything else is dropped. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Text from a string, number or boolean; objects are dropped (they would print as `[object Object]`). */
export function toText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}
