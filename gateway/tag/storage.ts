/**
 * The tag's first-party storage, in the browser: cookies on the site's registrable domain (so
 * `www.` and `shop.` share them), localStorage and sessionStorage that may be switched off or
 * full (Safari's private windows, a blocked site), and random ids. Every access is guarded: a
 * tag must never break the page it is on.
 */

/**
 * A random UUID (v4) from `crypto.getRandomValues`, which every page has (`crypto.randomUUID`
 * only secure ones): one path for both, the version (4) and variant (8–b) digits set.
 */
export function uuid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 15) | 64;
  bytes[8] = (bytes[8]! & 63) | 128;
  let hex = '';
  for (const b of bytes) hex += (b + 256).toString(16).slice(1);
  return hex.replace(/(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
}

/** A cookie's value, or undefined (`name` is one of the tag's own names: no pattern characters). */
export function readCookie(name: string): string | undefined {
  const value = new RegExp(`(?:^|; )${name}=([^;]*)`).exec(document.cookie)?.[1];
  try {
    return value && decodeURIComponent(value);
  } catch {
    return value;
  }
}

let root: string | null | undefined;

/**
 * Sets a cookie for `seconds` (0 removes it), on `domain` or the host alone; the Cookie Store API
 * is asynchronous, and missing from older browsers.
 */
const setCookie = (name: string, value: string, seconds: number, domain: string | null): void => {
  // biome-ignore lint/suspicious/noDocumentCookie: synchronous, and in every browser the tag supports
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; max-age=${seconds}; SameSite=Lax${
    domain ? `; domain=${domain}` : ''
  }${location.protocol === 'https:' ? '; Secure' : ''}`;
};

/**
 * The registrable domain (`example.co.uk` for `www.example.co.uk`): the shortest suffix the
 * browser lets a cookie be set on, found by trying (no public suffix list in the tag). `null`
 * on an IP address or a one-label host: the cookie is then the host's own.
 */
export function rootDomain(): string | null {
  if (root !== undefined) return root;
  const host = location.hostname;
  root = null;
  if (/^[\d.]+$|:/.test(host) || !host.includes('.')) return root;
  const labels = host.split('.');
  for (let i = labels.length - 2; i >= 0; i--) {
    const domain = labels.slice(i).join('.');
    setCookie('eventbus_probe', '1', 9, domain);
    if (readCookie('eventbus_probe')) {
      setCookie('eventbus_probe', '', 0, domain);
      root = domain;
      break;
    }
  }
  return root;
}

/** Sets (or, with `days` 0, removes) a first-party cookie on the registrable domain. */
export function writeCookie(name: string, value: string, days: number): void {
  setCookie(name, value, days * 86400, rootDomain());
}

/** localStorage or sessionStorage, read and written without ever throwing. */
export function store(kind: 'localStorage' | 'sessionStorage') {
  return {
    get(key: string): string | undefined {
      try {
        return window[kind].getItem(key) ?? undefined;
      } catch {
        return undefined;
      }
    },
    set(key: string, value: string | undefined): void {
      try {
        if (value === undefined) window[kind].removeItem(key);
        else window[kind].setItem(key, value);
      } catch {
        // full or switched off: the value lives in memory for this page only
      }
    },
  };
}

/** JSON from a storage value, or undefined when absent or unreadable. */
export function parsed<T>(text: string | undefined): T | undefined {
  try {
    return text ? (JSON.parse(text) as T) : undefined;
  } catch {
    return undefined;
  }
}
