/**
 * The one redaction of credentials in every log line (docs/security.md, "Logs"), applied by
 * adapters/log-redaction.ts to everything a service process writes to stdout or stderr (the
 * gateway, the studio, every function, the local stand-ins): whatever logged it — our own
 * structured lines, a library's warning, an error's message or stack — a line leaves the process
 * only through here.
 *
 * Two kinds of credential are removed, each replaced by `[redacted]`:
 * - the values the process holds as secrets (a destination's API key, a signing secret, the admin
 *   token, an OAuth access token and the parts of a credentials file), told to the redactor by the
 *   one place each is read (`noteSecret`), as written and percent-encoded;
 * - anything shaped like a credential whoever sent it: a project token or write key (`ebt_…`,
 *   `ebk_…`), the value after `Bearer` or `Basic`, a URL's credential-named query parameter
 *   (`?token=`, `api_key=`, `access_token=`, `sig=` …, as core/privacy/redact-url.ts names them),
 *   and a credential header's value in JSON (`"authorization": "…"`, `"x-api-key": "…"`).
 * Pure; the common line, holding none of these, costs one test per pattern.
 */
import { REDACTED } from './redact-url.ts';

/** A secret shorter than this is not looked for as a value (it would match ordinary words). */
export const MIN_SECRET_LENGTH = 8;

/** A project token or write key, where it starts (core/privacy/redact-url.ts's CREDENTIAL). */
const TOKEN = /(^|[^A-Za-z0-9])eb[tk]_[A-Za-z0-9_-]+/gi;
/** An HTTP authorization scheme and its credential. */
const SCHEME = /\b(Bearer|Basic)(\s+|%20|\+)[A-Za-z0-9._~+/=%-]{4,}/gi;
/** A query parameter named like a credential, with its value (up to the next separator). */
const PARAMETER =
  /([?&;]|\\u0026)([A-Za-z0-9_.-]*(?:key|token|secret|passw(?:or)?d|pwd|auth(?:orization)?|signature|sig|credentials?))=([^&;\s"'#\\]+)/gi;
/** A credential header (or field) with its value, in JSON: the name in quotes, then a string. */
const HEADER =
  /("(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|api[-_]?key|x-eventbus-signature|stripe-signature|x-hub-signature(?:-256)?|private_key|client_secret|refresh_token|access_token|password|secret)"\s*:\s*")((?:[^"\\]|\\.)*)"/gi;

/** What the redactor knows: the secret values this process holds (longest first). */
export interface KnownSecrets {
  readonly values: readonly string[];
}

/** The forms a secret value may be written in: as it is, and percent-encoded (in a URL). */
export function secretForms(value: string): string[] {
  const v = value.trim();
  if (v.length < MIN_SECRET_LENGTH) return [];
  const encoded = encodeURIComponent(v);
  return encoded === v ? [v] : [v, encoded];
}

/**
 * The parts of a secret worth looking for on their own: a credentials file (JSON) logs its fields
 * apart (a refresh token, a private key), never as the whole file.
 */
export function secretParts(value: string): string[] {
  const parts = [value];
  if (value.trimStart().startsWith('{')) {
    try {
      const json = JSON.parse(value) as unknown;
      if (json !== null && typeof json === 'object')
        for (const v of Object.values(json as Record<string, unknown>))
          if (typeof v === 'string' && v.length >= 16) parts.push(v);
    } catch {
      // Not JSON after all: the whole value is the secret.
    }
  }
  return parts;
}

/** The text with every credential it holds replaced by `[redacted]`. */
export function redactLogText(text: string, known: KnownSecrets = { values: [] }): string {
  let out = text;
  for (const value of known.values) if (out.includes(value)) out = out.replaceAll(value, REDACTED);
  if (/eb[tk]_/i.test(out)) out = out.replace(TOKEN, `$1${REDACTED}`);
  if (/bearer|basic/i.test(out)) out = out.replace(SCHEME, `$1$2${REDACTED}`);
  if (out.includes('=')) out = out.replace(PARAMETER, `$1$2=${REDACTED}`);
  if (out.includes('"')) out = out.replace(HEADER, `$1${REDACTED}"`);
  return out;
}
