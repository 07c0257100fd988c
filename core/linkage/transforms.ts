/**
 * The named value transforms of the mapping language. Each is pure and total: a value it
 * cannot make sense of becomes `undefined` (the field is then left out), never an exception,
 * so one odd field does not stop an event. Normalisation follows the platforms' own rules
 * (docs/platforms.md: Meta's customer-information parameters and SDK normalisers), not a peer's.
 */
import { createHash } from 'node:crypto';

const HASH = /^[a-f0-9]{64}$/i;

/** True when a string already is a SHA-256 hex digest (so hashing it again would break matching). */
export function isSha256(value: string): boolean {
  return HASH.test(value);
}

/** Lowercase hex SHA-256 of the UTF-8 string; values that already are a digest pass through (lowercased). */
export function sha256(value: string): string {
  if (isSha256(value)) return value.toLowerCase();
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/**
 * Country calling codes by ISO 3166-1 alpha-2 (lowercase). Not exhaustive: a phone number
 * without an international prefix and a country outside this table cannot be completed and
 * is dropped rather than sent wrong.
 */
export const CALLING_CODES: Readonly<Record<string, string>> = Object.freeze({
  us: '1',
  ca: '1',
  pr: '1',
  gb: '44',
  ie: '353',
  fr: '33',
  de: '49',
  at: '43',
  ch: '41',
  it: '39',
  es: '34',
  pt: '351',
  nl: '31',
  be: '32',
  lu: '352',
  dk: '45',
  se: '46',
  no: '47',
  fi: '358',
  is: '354',
  pl: '48',
  cz: '420',
  sk: '421',
  hu: '36',
  ro: '40',
  bg: '359',
  gr: '30',
  hr: '385',
  si: '386',
  rs: '381',
  ua: '380',
  ee: '372',
  lv: '371',
  lt: '370',
  tr: '90',
  il: '972',
  ae: '971',
  sa: '966',
  eg: '20',
  za: '27',
  ng: '234',
  ke: '254',
  ma: '212',
  in: '91',
  pk: '92',
  bd: '880',
  cn: '86',
  hk: '852',
  tw: '886',
  jp: '81',
  kr: '82',
  sg: '65',
  my: '60',
  th: '66',
  vn: '84',
  id: '62',
  ph: '63',
  au: '61',
  nz: '64',
  mx: '52',
  br: '55',
  ar: '54',
  cl: '56',
  co: '57',
  pe: '51',
  ru: '7',
  kz: '7',
});

/** The result of phone normalisation: digits with the country code, or nothing. */
export type PhoneFormat = 'e164' | 'digits';

/**
 * Normalises a phone number to digits with the country code (Meta: `16505551212`) or to
 * E.164 (`+16505551212`, TikTok). An explicit international prefix (`+` or `00`) wins;
 * otherwise the national trunk `0` is dropped and the calling code of `country` prefixed.
 * Meta's SDK accepts 7–15 digits; anything outside that is dropped.
 */
export function phone(value: string, format: PhoneFormat, country?: string): string | undefined {
  const trimmed = value.trim();
  let digits: string;
  if (/^\s*(\+|00)/.test(trimmed)) {
    digits = trimmed.replace(/\D/g, '').replace(/^00/, '');
  } else {
    const national = trimmed.replace(/\D/g, '');
    const code = country ? CALLING_CODES[country.trim().toLowerCase()] : undefined;
    if (code === undefined) {
      // Without a country we can only trust a number long enough to carry its own code.
      if (national.length < 11) return undefined;
      digits = national;
    } else if (code === '1' && national.length === 11 && national.startsWith('1')) {
      digits = national; // NANP numbers are often written with the leading 1 already.
    } else if (national.startsWith(code) && national.length > 10 && !national.startsWith('0')) {
      digits = national;
    } else {
      digits = code + national.replace(/^0/, '');
    }
  }
  if (digits.length < 7 || digits.length > 15) return undefined;
  return format === 'e164' ? `+${digits}` : digits;
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

/** Postal code: lowercase, no spaces, the part before `-`; US codes cut to 5 digits. */
export function zip(value: string, country?: string): string | undefined {
  const base = value.toLowerCase().replace(/\s+/g, '').split('-')[0] ?? '';
  if (base === '') return undefined;
  if (country?.trim().toLowerCase() === 'us') {
    const digits = base.replace(/\D/g, '');
    return digits.length >= 5 ? digits.slice(0, 5) : undefined;
  }
  return base;
}

/** Country: ISO 3166-1 alpha-2, lowercase; anything else is dropped. */
export function country(value: string): string | undefined {
  const v = value.trim().toLowerCase();
  return /^[a-z]{2}$/.test(v) ? v : undefined;
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
