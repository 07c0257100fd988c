/**
 * What one sample value could be. Each value votes for every reading it fits (`12` is an integer,
 * a number and a 0/1 flag; `01/02/2024` is day-first and month-first); infer.ts counts the
 * votes of a whole column and picks. Dispatches on the first character so a cell costs a few
 * regular expressions at most (docs/creator-inference.md).
 */
import { COUNTRY_CODES, CURRENCY_CODES } from './codes.ts';

/**
 * Vote keys. Numbers come in two readings: `.` as the decimal mark (`int.`, `num.`) or `,`
 * (`int,`, `num,`); `1.234` is both the number 1.234 and the integer 1234. Dates and timestamps
 * vote `date:<pattern>` and `ts:<pattern>`.
 */
export const VOTE = {
  bool: 'bool',
  bool01: 'bool01',
  /** `on`/`off`: a switch, or a province (`ON`, Ontario) or a form's ticked box; weak like 0/1. */
  boolSwitch: 'boolSwitch',
  intDot: 'int.',
  numDot: 'num.',
  intComma: 'int,',
  numComma: 'num,',
  email: 'email',
  url: 'url',
  uuid: 'uuid',
  phone: 'phone',
  currency: 'currency',
  /**
   * A currency code in any case (`usd`, Stripe's way): a currency only under a currency-like name
   * (infer.ts), since lower-case words such as `all`, `top` and `mad` are codes too.
   */
  currencyAnyCase: 'currencyAnyCase',
  country: 'country',
  json: 'json',
} as const;

/** The generic pattern every ISO 8601 date-time votes for, besides its exact shape. */
export const ISO_8601 = 'ISO 8601';
export const RFC_3339 = 'RFC 3339';

const BOOLEAN_WORDS = new Set(
  'true false yes no y n t f ja nein wahr falsch oui non vrai faux si sí verdadero falso'.split(' '),
);
/** Words that read as yes/no only under a flag-like or consent-like name (infer.ts). */
const SWITCH_WORDS = new Set(['on', 'off']);

const INT = /^[+-]?\d+$/;
const DOT_DECIMAL = /^[+-]?(?:\d+\.\d*|\.\d+|\d+(?=e))(?:e[+-]?\d+)?$/i;
const COMMA_DECIMAL = /^[+-]?\d*,\d+$/;
const ONE_GROUP = /^[+-]?\d{1,3}[.,]\d{3}$/;
/** Digits in groups of three with one separator, then optionally a decimal part. */
const GROUPED = /^[+-]?\d{1,3}([,. '\u00a0\u202f])\d{3}(?:\1\d{3})*(?:([.,])\d+)?$/;
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:([Tt ])(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(\s?)([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;
const NUMERIC_DATE = /^(\d{1,4})([./-])(\d{1,2})\2(\d{1,4})(?:[ T,]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const EMAIL = /^[^\s@<>()[\]\\",;:]+@(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}$/u;
const URL_TEXT = /^https?:\/\/[^\s/?#]+[^\s]*$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PHONE = /^\+?[\d\s()./-]+$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** An empty cell: nothing, blanks, or a database's null marker. Empty cells make a field nullable. */
export function isEmptyValue(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v !== 'string') return false;
  // Most cells are neither blank nor padded: skip the trim.
  const a = v.charCodeAt(0);
  const z = v.charCodeAt(v.length - 1);
  if (v.length > 4 && a > 32 && a < 127 && z > 32 && z < 127) return false;
  const s = v.trim();
  return s === '' || s === 'null' || s === 'NULL' || s === '\\N';
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
const validDay = (y: number, m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= daysIn(m, y);
const validTime = (h?: string, min?: string, s?: string) =>
  Number(h ?? 0) <= 23 && Number(min ?? 0) <= 59 && Number(s ?? 0) <= 60;

function numberVotes(s: string, out: string[]): void {
  if (INT.test(s)) {
    const digits = s.replace(/^[+-]/, '');
    // `0049…`, `01067`: leading zeros are identifiers (postal codes, phone numbers), not amounts;
    // a `+` before seven or more digits is a phone number; beyond 15 digits an id, not a number.
    if ((digits.length > 1 && digits[0] === '0') || digits.length > 15) return;
    if (s[0] === '+' && digits.length >= 7) return;
    out.push(VOTE.intDot, VOTE.numDot, VOTE.intComma, VOTE.numComma);
    if (digits === '0' || digits === '1') out.push(VOTE.bool01);
    return;
  }
  if (DOT_DECIMAL.test(s)) {
    out.push(VOTE.numDot);
    if (ONE_GROUP.test(s)) out.push(VOTE.intComma, VOTE.numComma);
    return;
  }
  if (COMMA_DECIMAL.test(s)) {
    out.push(VOTE.numComma);
    if (ONE_GROUP.test(s)) out.push(VOTE.intDot, VOTE.numDot);
    return;
  }
  const g = GROUPED.exec(s);
  if (!g || g[1] === g[2]) return;
  const [group, decimal] = [g[1], g[2]];
  // Each reading votes once: a decimal part makes it a number only, none an integer and a number.
  if (decimal !== ',' && group !== '.') out.push(...(decimal ? [] : [VOTE.intDot]), VOTE.numDot);
  if (decimal !== '.' && group !== ',') out.push(...(decimal ? [] : [VOTE.intComma]), VOTE.numComma);
}

function isoVotes(m: RegExpExecArray, out: string[]): void {
  const [, y, mo, d, sep, h, min, sec, fraction, space, zone] = m;
  if (!validDay(Number(y), Number(mo), Number(d))) return;
  if (sep === undefined) {
    out.push('date:YYYY-MM-DD');
    return;
  }
  if (!validTime(h, min, sec)) return;
  out.push(`ts:${ISO_8601}`);
  const tee = sep === ' ' ? ' ' : 'T';
  if (tee === 'T' && sec !== undefined && space === '' && (zone?.length === 1 || zone?.length === 6))
    out.push(`ts:${RFC_3339}`);
  // The blank before an offset is part of the pattern: `2018-01-04 15:51:23 -0800` is `… HH:mm:ss Z`.
  else
    out.push(
      `ts:YYYY-MM-DD${tee}HH:mm${sec === undefined ? '' : ':ss'}${fraction ? '.SSS' : ''}${zone === undefined ? '' : `${space}Z`}`,
    );
}

/** `01.03.2024`, `03/01/2024`, `2024/03/01`, with an optional time: one vote per reading that is a real date. */
function numericDateVotes(m: RegExpExecArray, out: string[]): void {
  const [, a = '', sep = '', b = '', c = '', h, min, sec] = m;
  if (!validTime(h, min, sec)) return;
  const time = h === undefined ? '' : sec === undefined ? ' HH:mm' : ' HH:mm:ss';
  const kind = h === undefined ? 'date:' : 'ts:';
  const [na, nb, nc] = [Number(a), Number(b), Number(c)];
  if (a.length === 4) {
    if (c.length <= 2 && validDay(na, nb, nc)) out.push(`${kind}YYYY${sep}MM${sep}DD${time}`);
    return;
  }
  if (c.length !== 4 || a.length > 2) return;
  if (validDay(nc, nb, na)) out.push(`${kind}DD${sep}MM${sep}YYYY${time}`);
  if (validDay(nc, na, nb)) out.push(`${kind}MM${sep}DD${sep}YYYY${time}`);
}

/** An extension written after a number and a space (` x6155`, ` ext. 12`, ` ext 12`). */
const EXTENSION = /\s+(?:x|ext\.?)\s*\d{1,6}$/i;

function phoneVote(written: string, out: string[]): void {
  // The number without its extension: `731-620-9877 x6155` is a phone, the extension an office's line.
  const s = written.replace(EXTENSION, '');
  if (!PHONE.test(s) || IPV4.test(s)) return;
  let digits = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) digits++;
  if (digits < 7 || digits > 15) return;
  // A bare run of digits is a phone number only with a trunk or international prefix.
  if (s[0] === '+' || s[0] === '0' || /[\s()./-]/.test(s)) out.push(VOTE.phone);
}

function textVotes(s: string, out: string[]): void {
  if (s.length <= 9 && BOOLEAN_WORDS.has(s.toLowerCase())) out.push(VOTE.bool);
  else if (s.length <= 3 && SWITCH_WORDS.has(s.toLowerCase())) out.push(VOTE.boolSwitch);
  if (s.length === 2 && COUNTRY_CODES.has(s.toUpperCase()) && /^[a-z]{2}$/i.test(s)) out.push(VOTE.country);
  else if (s.length === 3 && CURRENCY_CODES.has(s.toUpperCase())) {
    out.push(VOTE.currencyAnyCase);
    if (CURRENCY_CODES.has(s)) out.push(VOTE.currency);
  } else if (s.length === 36 && UUID.test(s)) out.push(VOTE.uuid);
  else if (s.includes('@')) {
    if (s.length <= 320 && EMAIL.test(s)) out.push(VOTE.email);
  } else if ((s[0] === 'h' || s[0] === 'H') && URL_TEXT.test(s)) out.push(VOTE.url);
}

function jsonVote(s: string, out: string[]): void {
  try {
    const v: unknown = JSON.parse(s);
    if (typeof v === 'object' && v !== null) out.push(VOTE.json);
  } catch {
    // Not JSON: the cell is text.
  }
}

/**
 * A date and time written with the word `UTC` after it (`2020-03-03 13:05:57 UTC`, as Rails and
 * Ruby write a time): the word is a literal of the pattern, and a time with no offset is read in
 * UTC already. Only a date and time with no offset of its own votes.
 */
function utcVotes(s: string, out: string[]): void {
  const iso = ISO_DATE_TIME.exec(s);
  if (!iso) return;
  const inner: string[] = [];
  isoVotes(iso, inner);
  for (const k of inner) if (k.startsWith('ts:YYYY') && !k.endsWith('Z')) out.push(`${k} UTC`);
}

/**
 * Pushes onto `out` the vote keys of one non-empty value. Every value also fits `string`, which
 * is not voted. JSON numbers and booleans vote as their type; objects and arrays vote `json`.
 */
export function valueVotes(value: unknown, out: string[]): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return;
    if (Number.isInteger(value)) out.push(VOTE.intDot, VOTE.intComma);
    out.push(VOTE.numDot, VOTE.numComma);
    return;
  }
  if (typeof value === 'boolean') {
    out.push(VOTE.bool);
    return;
  }
  if (typeof value === 'object' && value !== null) {
    out.push(VOTE.json);
    return;
  }
  if (typeof value !== 'string') return;
  const s = value.trim();
  const c = s.charCodeAt(0);
  const digitLike = (c >= 48 && c <= 57) || s[0] === '+' || s[0] === '-' || s[0] === '.' || s[0] === '(';
  if (digitLike) {
    if (s.endsWith(' UTC')) {
      utcVotes(s.slice(0, -4), out);
      return;
    }
    numberVotes(s, out);
    const iso = s.length >= 10 ? ISO_DATE_TIME.exec(s) : null;
    const date = iso || s.length < 8 ? null : NUMERIC_DATE.exec(s);
    if (iso) isoVotes(iso, out);
    else if (date) numericDateVotes(date, out);
    // Date-shaped text is never a phone number, even when it is no real date (2023-02-29).
    else phoneVote(s, out);
    if (s.length === 36 && UUID.test(s)) out.push(VOTE.uuid);
    return;
  }
  if (s[0] === '{' || s[0] === '[') jsonVote(s, out);
  else textVotes(s, out);
}

/** Whether a text cell reads as a number, date, time, e-mail address or URL (header detection). */
export function isTypedText(s: string): boolean {
  const out: string[] = [];
  valueVotes(s, out);
  return out.some(
    (k) =>
      k !== VOTE.bool &&
      k !== VOTE.boolSwitch &&
      k !== VOTE.country &&
      k !== VOTE.currency &&
      k !== VOTE.currencyAnyCase &&
      k !== VOTE.json,
  );
}
