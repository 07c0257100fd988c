/**
 * Date and time patterns of exports (`DD.MM.YYYY`, `MM/DD/YYYY HH:mm`, `YYYY-MM-DDTHH:mm:ssZ`),
 * the same vocabulary the creator's inference writes (docs/creator-inference.md): `YYYY` `YY`
 * `MM` `M` `DD` `D` `HH` `H` `mm` `ss` `SSS` (fraction) `Z` (`Z`, `+01:00` or `+0100`); anything
 * else is literal. Times without an offset are read in an IANA time zone (default UTC). Pure.
 * Read by the translators (core/translate/) and written by the creator's inference (core/samples/).
 */

const TOKENS = ['YYYY', 'SSS', 'YY', 'MM', 'DD', 'HH', 'mm', 'ss', 'M', 'D', 'H', 'Z'] as const;
type Token = (typeof TOKENS)[number];

const TOKEN_RE: Readonly<Record<Token, string>> = {
  YYYY: '(\\d{4})',
  YY: '(\\d{2})',
  MM: '(\\d{2})',
  M: '(\\d{1,2})',
  DD: '(\\d{2})',
  D: '(\\d{1,2})',
  HH: '(\\d{2})',
  H: '(\\d{1,2})',
  mm: '(\\d{2})',
  ss: '(\\d{2})',
  SSS: '(\\d{1,9})',
  Z: '([Zz]|[+-]\\d{2}:?\\d{2})',
};

interface Compiled {
  readonly re: RegExp;
  readonly tokens: readonly Token[];
}

const compiledPatterns = new Map<string, Compiled>();

/** Why a pattern cannot be used, or undefined. */
export function patternProblem(pattern: string, kind: 'date' | 'timestamp'): string | undefined {
  const { tokens } = compile(pattern);
  const has = (...t: Token[]) => t.some((x) => tokens.includes(x));
  if (!has('YYYY', 'YY') || !has('MM', 'M') || !has('DD', 'D'))
    return 'needs a year (YYYY or YY), a month (MM or M) and a day (DD or D)';
  if (new Set(tokens).size !== tokens.length) return 'names a part twice';
  if (kind === 'date' && has('HH', 'H', 'mm', 'ss', 'SSS', 'Z'))
    return 'a date pattern has no time: use timestamp';
  return undefined;
}

function compile(pattern: string): Compiled {
  let c = compiledPatterns.get(pattern);
  if (c) return c;
  let source = '';
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; ) {
    const token = TOKENS.find((t) => pattern.startsWith(t, i));
    if (token) {
      source += TOKEN_RE[token];
      tokens.push(token);
      i += token.length;
    } else {
      source += (pattern[i] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      i += 1;
    }
  }
  c = { re: new RegExp(`^${source}$`), tokens };
  compiledPatterns.set(pattern, c);
  return c;
}

interface Parts {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
  /** Minutes east of UTC, when the text carries an offset. */
  offset?: number;
}

/** Reads text by a pattern; undefined when it does not match or names no real date and time. */
export function readPattern(text: string, pattern: string): Parts | undefined {
  const { re, tokens } = compile(pattern);
  const m = re.exec(text.trim());
  if (!m) return undefined;
  const p: Parts = { y: 0, mo: 0, d: 0, h: 0, mi: 0, s: 0, ms: 0 };
  tokens.forEach((t, i) => {
    const v = m[i + 1] as string;
    switch (t) {
      case 'YYYY':
        p.y = Number(v);
        break;
      case 'YY':
        // Two-digit years are this century's up to 69, the last one's from 70 (as most tools read them).
        p.y = Number(v) + (Number(v) < 70 ? 2000 : 1900);
        break;
      case 'MM':
      case 'M':
        p.mo = Number(v);
        break;
      case 'DD':
      case 'D':
        p.d = Number(v);
        break;
      case 'HH':
      case 'H':
        p.h = Number(v);
        break;
      case 'mm':
        p.mi = Number(v);
        break;
      case 'ss':
        p.s = Number(v);
        break;
      case 'SSS':
        p.ms = Math.floor(Number(`0.${v}`) * 1000);
        break;
      case 'Z': {
        if (v === 'Z' || v === 'z') p.offset = 0;
        else {
          const digits = v.slice(1).replace(':', '');
          const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
          p.offset = v[0] === '-' ? -minutes : minutes;
        }
        break;
      }
    }
  });
  const day = new Date(Date.UTC(p.y, p.mo - 1, p.d));
  if (day.getUTCFullYear() !== p.y || day.getUTCMonth() !== p.mo - 1 || day.getUTCDate() !== p.d)
    return undefined;
  if (p.h > 23 || p.mi > 59 || p.s > 59) return undefined;
  return p;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `YYYY-MM-DD` of a date read by a pattern. */
export function isoDate(p: Parts): string {
  return `${pad(p.y, 4)}-${pad(p.mo)}-${pad(p.d)}`;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether an IANA time zone name is known to this runtime. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Offsets already computed, per zone and quarter hour (no zone changes offset within one). */
const offsets = new Map<string, number>();
const QUARTER_HOUR = 900_000;

/** Minutes east of UTC that `zone` is at the instant `utcMs` (formatToParts is slow: cached). */
function zoneOffset(zone: string, utcMs: number): number {
  const key = `${zone}\n${Math.floor(utcMs / QUARTER_HOUR)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    offset = computeOffset(zone, Math.floor(utcMs / QUARTER_HOUR) * QUARTER_HOUR);
    if (offsets.size > 100_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

function computeOffset(zone: string, utcMs: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  const get = (type: string) => Number(f.formatToParts(utcMs).find((x) => x.type === type)?.value ?? 0);
  const local = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return Math.round((local - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

/**
 * The instant a date and time read by a pattern names: its own offset when it has one, else the
 * wall-clock time in `zone` (a time skipped by a DST change moves forward, a repeated one takes
 * the first).
 */
export function instant(p: Parts, zone = 'UTC'): number {
  const wall = Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s, p.ms);
  if (p.offset !== undefined) return wall - p.offset * 60_000;
  if (zone === 'UTC') return wall;
  const first = wall - zoneOffset(zone, wall) * 60_000;
  return wall - zoneOffset(zone, first) * 60_000;
}
