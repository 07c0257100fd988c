/**
 * A request URL as every service's records, logs and answers may show it (the gateway, the
 * studio): every credential the gateway would take from a URL, or that looks like one (a
 * `?token=`, a `key`, a project token in a path), replaced by `[redacted]`. In the gateway, applied once
 * per request ahead of routing (gateway/runtime.ts `showUrl`), so a path that does not route
 * (a trailing slash, a `.json`, a double slash, an upper-case name) shows its token no more
 * than a routed one (issue 61). Pure; the common path, with nothing to redact, is one regex
 * test and returned as is.
 */

export const REDACTED = '[redacted]';

/**
 * Where a credential may hide in a path: a translator's segments, a project token or write key
 * anywhere, percent-encoding that spells one, userinfo of an absolute-form target.
 */
const SUSPECT_PATH = /translators|eb[tk]_|%|@/i;
/** A project token or write key, where it starts (not inside a word: `webtk_` is not one). */
const CREDENTIAL = /(?:^|[^A-Za-z0-9])eb[tk]_/i;
/** The scheme and userinfo of an absolute-form request target (`http://user:pass@host/…`). */
const USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/;
/** Query parameters named like a credential (`key`, `token`, `access_token`, `writeKey`, `sig`). */
const CREDENTIAL_PARAMETER =
  /(key|token|secret|passw(or)?d|pwd|auth(orization)?|signature|sig|credentials?)$/i;

/** The URL with its credentials redacted: path by segment, query by parameter. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? redactPath(url) : `${redactPath(url.slice(0, q))}?${redactQuery(url.slice(q + 1))}`;
}

/**
 * A path with its credentials redacted: after a `translators` segment (in any case) and the
 * next non-empty one (the translator's name), every non-empty segment, since a URL credential
 * is the segment after the name however the rest is spelled; and anywhere, a segment that is or
 * holds a token or key once percent-decoded. Slashes are kept, so the shape stays readable.
 */
export function redactPath(path: string): string {
  if (!SUSPECT_PATH.test(path)) return path;
  const segments = path.replace(USERINFO, `$1${REDACTED}@`).split('/');
  let translators = false;
  let named = false;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i] as string;
    if (s === '') continue;
    const plain = decoded(s);
    if (named || CREDENTIAL.test(plain)) segments[i] = REDACTED;
    else if (translators) named = true;
    else translators = plain.toLowerCase() === 'translators';
  }
  return segments.join('/');
}

/** A query with the values of credential-named parameters, and of any holding a token or key, redacted. */
export function redactQuery(query: string): string {
  if (query === '') return query;
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      const plainName = decoded(name.replaceAll('+', ' '));
      if (CREDENTIAL.test(plainName)) return REDACTED;
      if (CREDENTIAL_PARAMETER.test(plainName) || CREDENTIAL.test(decoded(value.replaceAll('+', ' '))))
        return `${name}=${REDACTED}`;
      return pair;
    })
    .join('&');
}

/**
 * Text percent-decoded until it no longer changes (at most three times: `%2565` is `%65` is
 * `e`); malformed escapes are left as they are, a character at a time.
 */
function decoded(text: string): string {
  let t = text;
  for (let i = 0; i < 3 && t.includes('%'); i++) {
    const next = t.replace(/%[0-9A-Fa-f]{2}/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
    if (next === t) break;
    t = next;
  }
  return t;
}
