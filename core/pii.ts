/**
 * Personal data handling shared by the warehouse rows and the outgoing payloads: the
 * path-based PII policy of the settings (hash or drop listed context fields) and a pattern
 * scrub for personal data hidden where no field names it (an email in a URL's query string,
 * a phone number in free text). Pure.
 */
import { hash } from 'node:crypto';

/** Which context fields to hash (SHA-256 of the trimmed, lower-cased text) or drop. */
export interface PiiPolicy {
  readonly hashInWarehouse: readonly string[];
  readonly drop: readonly string[];
}

export const sha256 = (text: string) => hash('sha256', text, 'hex');

const HASHED = /^[0-9a-f]{64}$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A copy of `value` with the policy's dotted paths dropped or hashed; the input is untouched
 * and keeps its shape otherwise. A value that is already 64 hex characters stays as it is, so
 * a producer that hashes is not hashed twice. Anything that is not an object is returned as is.
 */
export function applyPiiPolicy<T>(value: T, policy: PiiPolicy): T {
  if (!isObject(value) || (policy.hashInWarehouse.length === 0 && policy.drop.length === 0)) return value;
  const copy = structuredClone(value) as Record<string, unknown>;
  const edit = (path: string, f: (parent: Record<string, unknown>, key: string) => void) => {
    const parts = path.split('.');
    const key = parts.pop() as string;
    let parent: unknown = copy;
    for (const p of parts) parent = isObject(parent) ? parent[p] : undefined;
    if (isObject(parent) && Object.hasOwn(parent, key)) f(parent, key);
  };
  for (const path of policy.drop) edit(path, (parent, key) => delete parent[key]);
  for (const path of policy.hashInWarehouse) {
    edit(path, (parent, key) => {
      const v = parent[key];
      if (typeof v === 'string' && !HASHED.test(v)) parent[key] = sha256(v.trim().toLowerCase());
    });
  }
  return copy as T;
}

/** What replaces scrubbed personal data. */
export const REDACTED = 'REDACTED';

// An address as people write it; percent-encoded `@` is decoded before matching.
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// International numbers only (a leading +): local digit runs are too often order numbers or dates.
const PHONE = /\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}/g;
/** Query parameters whose value is personal data whatever it looks like. */
const PII_PARAMS = /^(e-?mail|email_address|phone|phone_number|tel|mobile|first_?name|last_?name|name)$/i;

/** Free text with emails and international phone numbers replaced. */
export function scrubText(text: string): string {
  if (!text.includes('@') && !text.includes('+')) return text;
  return text
    .replace(EMAIL, REDACTED)
    .replace(PHONE, (m) => (m.replace(/\D/g, '').length >= 8 ? REDACTED : m));
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * An http(s) URL with personal data removed: a query value that is, or contains, an email or
 * a phone number, or sits under a parameter named like one (`email`, `phone`…), becomes
 * REDACTED; an email in the path or fragment too. Other parameters keep their exact bytes.
 */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  const h = url.indexOf('#', q < 0 ? 0 : q);
  const base = q < 0 ? (h < 0 ? url : url.slice(0, h)) : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1, h < 0 ? undefined : h);
  const fragment = h < 0 ? '' : url.slice(h);
  const scrubbedQuery = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = decodeSafely(pair.slice(0, eq));
      const value = decodeSafely(pair.slice(eq + 1));
      if (value === '') return pair;
      return PII_PARAMS.test(name) || scrubText(value) !== value ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  const clean = (part: string) => {
    const decoded = decodeSafely(part);
    const scrubbed = scrubText(decoded);
    return scrubbed === decoded ? part : scrubbed;
  };
  return `${clean(base)}${q < 0 ? '' : `?${scrubbedQuery}`}${clean(fragment)}`;
}

const URL_START = /^https?:\/\//i;

/**
 * A copy of an outgoing payload with personal data scrubbed from every string by its kind:
 * URLs (page, referrer, landing page…) through scrubUrl, other text through scrubText. Hashed
 * identifiers (64 hex) match neither pattern and pass unchanged, so mapped `em`/`ph` survive.
 * Works on any field a mapping adds later, since it looks at values rather than names.
 */
export function scrubPayload<T>(value: T): T {
  if (typeof value === 'string') return (URL_START.test(value) ? scrubUrl(value) : scrubText(value)) as T;
  if (Array.isArray(value)) return value.map((v) => scrubPayload(v)) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    // defineProperty: a key named `__proto__` stays a key rather than replacing the prototype.
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: scrubPayload(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out as T;
  }
  return value;
}
