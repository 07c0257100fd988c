/**
 * BigQuery's date and time text ↔ microseconds since the epoch (UTC): the generic parser of every
 * form BigQuery reads, the fast reader of the canonical `…Z` form streaming rows mostly carry,
 * picosecond timestamps' stored text, and the civil date and time text results are written in.
 * Pure.
 */

export const DATE_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const TS_RE =
  /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[Tt ]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|z|UTC|[+-]\d{1,2}(?::?\d{2})?)?$/;
export const TIME_RE = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** Days since 1970-01-01 of a civil date, or undefined when it is no date (2023-02-30). */
export function daysFromCivil(y: number, m: number, d: number): number | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1 || y > 9999) return undefined;
  const dt = new Date(0);
  dt.setUTCFullYear(y, m - 1, d);
  if (dt.getUTCMonth() !== m - 1) return undefined;
  return Math.round(dt.getTime() / 86_400_000);
}

/** A fraction of a second's digits as microseconds (the digits below dropped). */
export function fractionMicros(frac: string | undefined): bigint {
  return BigInt((frac ?? '').padEnd(6, '0').slice(0, 6) || '0');
}

/** Parses BigQuery's accepted TIMESTAMP text to microseconds since the epoch (UTC). */
export function parseTimestampMicros(s: string, withZone = true): bigint | undefined {
  const m = TS_RE.exec(s.trim());
  if (!m) return undefined;
  const days = daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
  if (days === undefined) return undefined;
  const h = Number(m[4] ?? 0);
  const mi = Number(m[5] ?? 0);
  const sec = Number(m[6] ?? 0);
  if (h > 23 || mi > 59 || sec > 59) return undefined;
  let micros =
    BigInt(days) * 86_400_000_000n + BigInt((h * 3600 + mi * 60 + sec) * 1_000_000) + fractionMicros(m[7]);
  const zone = m[8];
  if (zone && !withZone) return undefined;
  if (zone && /^[+-]/.test(zone)) {
    const zm = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(zone) as RegExpExecArray;
    const offset = (Number(zm[2]) * 60 + Number(zm[3] ?? 0)) * 60_000_000;
    micros += zm[1] === '+' ? -BigInt(offset) : BigInt(offset);
  }
  return micros;
}

/** Seconds with a fraction of up to 12 digits, and what follows (the zone). */
const PICO_FRACTION = /^(.*\d:\d{2}:\d{2})\.(\d{1,12})(\D.*)?$/s;

/**
 * A picosecond TIMESTAMP as stored: `YYYY-MM-DDTHH:MM:SS.` and 12 digits and `Z` (UTC), from any
 * text BigQuery reads as a timestamp (with up to 12 fraction digits) or float seconds; undefined
 * when it is not one.
 */
export function picoTimestampText(v: unknown): string | undefined {
  let micros: bigint | undefined;
  let belowMicros = '000000';
  if (typeof v === 'number' && Number.isFinite(v)) micros = BigInt(Math.round(v * 1_000_000));
  else if (typeof v === 'string') {
    const m = PICO_FRACTION.exec(v.trim());
    if (m) {
      const digits = (m[2] as string).padEnd(12, '0');
      belowMicros = digits.slice(6);
      micros = parseTimestampMicros(`${m[1]}.${digits.slice(0, 6)}${m[3] ?? ''}`);
    } else micros = parseTimestampMicros(v);
  }
  if (micros === undefined) return undefined;
  const c = civilFromMicros(micros);
  const us = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return `${c.date}T${c.time.slice(0, 8)}.${pad(us, 6)}${belowMicros}Z`;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isDigit = (c: number) => c >= 48 && c <= 57;
const digits = (s: string, at: number, n: number): number => {
  let out = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    out = out * 10 + (c - 48);
  }
  return out;
};

/**
 * `YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}]Z` (what toISOString and most producers write) to
 * microseconds, without a regular expression; undefined for anything else, which the
 * generic parser then reads.
 */
export function canonicalTimestampMicros(s: string): bigint | undefined {
  const micros = canonicalFraction(s);
  if (micros < 0) return undefined;
  const utc = Date.UTC(
    digits(s, 0, 4),
    digits(s, 5, 2) - 1,
    digits(s, 8, 2),
    digits(s, 11, 2),
    digits(s, 14, 2),
    digits(s, 17, 2),
  );
  return BigInt(utc) * 1000n + BigInt(micros);
}

/** Whether `canonicalTimestampMicros` reads `s` (without building its value). */
export function isCanonicalTimestamp(s: string): boolean {
  return canonicalFraction(s) >= 0;
}

/** The microseconds within the second of a canonical timestamp, or -1 when `s` is not one. */
function canonicalFraction(s: string): number {
  const n = s.length;
  if (n < 20 || n > 30 || s.charCodeAt(n - 1) !== 90 /* Z */) return -1;
  const sep = s.charCodeAt(10);
  if (s[4] !== '-' || s[7] !== '-' || (sep !== 84 && sep !== 32) || s[13] !== ':' || s[16] !== ':') return -1;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  // Years below 1000 are left to the generic path (Date.UTC maps 0-99 to 19xx).
  if (y < 1000 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
    return -1;
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (DAYS_IN_MONTH[mo - 1] as number) + (leap ? 1 : 0)) return -1;
  let micros = 0;
  if (n > 20) {
    if (s[19] !== '.' || n === 21) return -1;
    const frac = n - 21;
    const all = digits(s, 20, frac);
    if (all < 0) return -1;
    // Only the first six digits count, as in parseTimestampMicros (BigQuery keeps microseconds).
    micros = frac <= 6 ? all * 10 ** (6 - frac) : Math.trunc(all / 10 ** (frac - 6));
  } else if (s[19] !== 'Z') return -1;
  return micros;
}

/** `n` in decimal, zero-padded to `w` digits. */
export function pad(n: number | bigint, w = 2): string {
  return String(n).padStart(w, '0');
}

/** Microseconds since the epoch as civil `YYYY-MM-DD` and `HH:MM:SS[.ffffff]` (UTC). */
export function civilFromMicros(micros: bigint): { date: string; time: string } {
  const dayUs = 86_400_000_000n;
  let days = micros / dayUs;
  let rem = micros % dayUs;
  if (rem < 0n) {
    rem += dayUs;
    days -= 1n;
  }
  const d = new Date(Number(days) * 86_400_000);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return { date, time: timeText(rem) };
}

/** Microseconds since midnight as `HH:MM:SS`, with `.ffffff` when there is a fraction. */
export function timeText(micros: bigint): string {
  const secs = micros / 1_000_000n;
  const frac = micros % 1_000_000n;
  const base = `${pad(secs / 3600n)}:${pad((secs / 60n) % 60n)}:${pad(secs % 60n)}`;
  return frac === 0n ? base : `${base}.${pad(frac, 6)}`;
}
