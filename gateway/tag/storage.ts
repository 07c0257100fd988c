/**
 * The tag's first-party storage, in the browser: cookies on the site's registrable domain (so
 * `www.` and `shop.` share them), localStorage and sessionStorage that may be switched off or
 * full (Safari's private windows, a blocked site), and random ids. Every access is guarded: a
 * tag must never break the page it is on.
 */

/** A random UUID (v4): `crypto.randomUUID` exists only on secure pages, getRandomValues everywhere. */
export function uuid(): string {
  const c = crypto;
  if (c.randomUUID) return c.randomUUID();
  // 16 random bytes as hex, the version (4) and variant (8–b) digits set, dashes after 8, 12, 16, 20.
  let id = '';
  c.getRandomValues(new Uint8Array(16)).forEach((b, i) => {
    const v = i === 6 ? (b & 15) | 64 : i === 8 ? (b & 63) | 128 : b;
    id += (i > 3 && i < 11 && !(i & 1) ? '-' : '') + (v + 256).toString(16).slice(1);
  });
  return id;
}

/** A cookie's value, or undefined. */
export function readCookie(name: string): string | undefined {
  for (const part of document.cookie.split('; ')) {
    const eq = part.indexOf('=');
    if (part.slice(0, eq) === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1));
      } catch {
        return part.slice(eq + 1);
      }
    }
  }
  return undefined;
}

let root: string | null | undefined;

/** One cookie line written (the Cookie Store API is asynchronous, and missing from older browsers). */
const setCookie = (line: string): void => {
  // biome-ignore lint/suspicious/noDocumentCookie: synchronous, and in every browser the tag supports
  document.cookie = line;
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
    setCookie(`eventbus_probe=1; path=/; domain=${domain}`);
    if (readCookie('eventbus_probe')) {
      setCookie(`eventbus_probe=; path=/; domain=${domain}; max-age=0`);
      root = domain;
      break;
    }
  }
  return root;
}

/** Sets (or, with `days` 0, removes) a first-party cookie on the registrable domain. */
export function writeCookie(name: string, value: string, days: number): void {
  const domain = rootDomain();
  setCookie(
    `${name}=${encodeURIComponent(value)}; path=/; max-age=${Math.round(days * 86400)}; SameSite=Lax` +
      (domain ? `; domain=${domain}` : '') +
      (location.protocol === 'https:' ? '; Secure' : ''),
  );
}

/** localStorage or sessionStorage, read and written without ever throwing. */
export function store(kind: 'localStorage' | 'sessionStorage') {
  const area = (): Storage | undefined => {
    try {
      return window[kind];
    } catch {
      return undefined;
    }
  };
  return {
    get(key: string): string | undefined {
      try {
        return area()?.getItem(key) ?? undefined;
      } catch {
        return undefined;
      }
    },
    set(key: string, value: string | undefined): void {
      try {
        if (value === undefined) area()?.removeItem(key);
        else area()?.setItem(key, value);
      } catch {
        // full or switched off: the value lives in memory for this page only
      }
    },
  };
}

/** JSON from a storage value, or undefined when absent or unreadable. */
export function parsed<T>(text: string | undefined): T | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
