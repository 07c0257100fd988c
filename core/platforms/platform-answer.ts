/**
 * What a platform said about a request, as the ledger keeps it (`deliveries.platform_ref`,
 * `platform_events_received`, `platform_response`; docs/delivery.md "What the platform answered"):
 * the id the platform gave the request (Meta's `fbtrace_id`, Google's `requestId`, TikTok's
 * `request_id`), the count it says it took, and a bounded JSON excerpt of codes, messages and
 * counts. Each platform's response table names the fields it keeps (an allow-list, never the
 * body); this file bounds the excerpt and scrubs its text, so no credential and no identifier,
 * raw or hashed, reaches the warehouse even when a platform echoes one in a message.
 */

/** The platform's answer, reduced to what the ledger keeps. */
export interface PlatformAnswer {
  /** The id the platform gave the request or its trace, for its support and its diagnostics. */
  readonly ref?: string;
  /** How many events the platform says it received. */
  readonly eventsReceived?: number;
  /** Allow-listed fields of the answer (codes, messages, counts), before bounding and scrubbing. */
  readonly excerpt?: Readonly<Record<string, unknown>>;
}

/** The ledger's columns for an answer, as written (null where the platform said nothing). */
export interface AnswerColumns {
  readonly platform_ref: string | null;
  readonly platform_events_received: number | null;
  readonly platform_response: string | null;
}

/** Longest `platform_response` kept, in characters of its JSON. */
export const MAX_EXCERPT_CHARS = 1024;
/** Longest single string kept in an excerpt (a message), and the most items of a list. */
const MAX_TEXT = 300;
const MAX_ITEMS = 5;
/** Longest id kept as `platform_ref`: platforms' ids are short; anything longer is not one. */
const MAX_REF = 128;

type Replacement = readonly [RegExp, string | ((match: string) => string)];

/**
 * Identifiers: sha256 in hex or base64, e-mail addresses, international phone numbers as E.164
 * or as people write them (+33 6 12 34 56 78, +1 (415) 555-2671: eight digits or more).
 */
const IDENTIFIERS: readonly Replacement[] = [
  [/\b[a-f0-9]{64}\b/gi, '[hash]'],
  [/[A-Za-z0-9+/]{43}=/g, '[hash]'],
  [/[^\s"'<>()@,;:]+@[^\s"'<>()@,;:]+\.[A-Za-z]{2,}/g, '[email]'],
  [/\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}/g, (m) => (m.replace(/\D/g, '').length >= 8 ? '[phone]' : m)],
];
/** Credentials: Graph and Google OAuth tokens, and any long run of letters and digits a token may be. */
const TOKENS: readonly Replacement[] = [
  [/\b(?:EAA|ya29\.)[A-Za-z0-9._-]+/g, '[token]'],
  [/\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{40,}\b/g, '[token]'],
];

function replaceAll(text: string, patterns: readonly Replacement[], secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 6) out = out.split(secret).join('[secret]');
  for (const [pattern, kind] of patterns)
    out = out.replace(pattern, (m) => (typeof kind === 'string' ? kind : kind(m)));
  return out;
}

/** A string with identifiers and credentials replaced by their kind, the secrets' values removed, bounded. */
export function scrubText(text: string, secrets: readonly string[] = []): string {
  const out = scrubbed(text, secrets);
  return out.length > MAX_TEXT ? `${out.slice(0, MAX_TEXT - 1)}…` : out;
}

/** A text with identifiers and credentials replaced by their kind and the secrets' values removed, unbounded. */
export function scrubbed(text: string, secrets: readonly string[] = []): string {
  return replaceAll(replaceAll(text, IDENTIFIERS, secrets), TOKENS, []);
}

/** A value of an excerpt, bounded and scrubbed: numbers and booleans as they are, text scrubbed, lists cut. */
function bound(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'string') return scrubText(value, secrets);
  if (depth > 5) return undefined;
  if (Array.isArray(value))
    return value
      .slice(0, MAX_ITEMS)
      .map((v) => bound(v, secrets, depth + 1))
      .filter((v) => v !== undefined);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const b = bound(v, secrets, depth + 1);
      if (b !== undefined) out[k] = b;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return undefined;
}

/** An id as the platform gave it, or undefined when it does not look like one (too long, or identifying). */
function refOf(ref: string | undefined, secrets: readonly string[]): string | undefined {
  if (ref === undefined || ref === '' || ref.length > MAX_REF) return undefined;
  // A platform's own id may be long and random: only identifiers and the secrets disqualify it.
  return replaceAll(ref, IDENTIFIERS, secrets) === ref ? ref : undefined;
}

/**
 * The ledger's columns for an answer: the excerpt bounded to MAX_EXCERPT_CHARS of JSON (a field
 * that would not fit is left out, in the order the platform's table lists them: most telling
 * first), every string scrubbed, the request's secrets' values removed.
 */
export function answerColumns(answer: PlatformAnswer, secrets: readonly string[] = []): AnswerColumns {
  const excerpt = answer.excerpt ? (bound(answer.excerpt, secrets, 0) as Record<string, unknown>) : undefined;
  let json = excerpt ? JSON.stringify(excerpt) : null;
  if (json !== null && excerpt && json.length > MAX_EXCERPT_CHARS) {
    const kept: Record<string, unknown> = {};
    json = '{}';
    for (const [k, v] of Object.entries(excerpt)) {
      const next = JSON.stringify({ ...kept, [k]: v });
      if (next.length > MAX_EXCERPT_CHARS) continue;
      kept[k] = v;
      json = next;
    }
  }
  const received = answer.eventsReceived;
  return {
    platform_ref: refOf(answer.ref, secrets) ?? null,
    platform_events_received: typeof received === 'number' && Number.isInteger(received) ? received : null,
    platform_response: json === '{}' ? null : json,
  };
}

/** The fields of `value` named in `keys` that are present, or undefined when none is. */
export function pick(value: unknown, keys: readonly string[]): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Each item of a list reduced to `keys` (the first few), or undefined when it is not a list. */
export function pickEach(list: unknown, keys: readonly string[]): Record<string, unknown>[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out = list
    .slice(0, MAX_ITEMS)
    .map((item) => pick(item, keys))
    .filter((x): x is Record<string, unknown> => x !== undefined);
  return out.length > 0 ? out : undefined;
}

/** An answer without its absent parts (so `{}` stands for "nothing said"). */
export function platformAnswer(parts: {
  ref?: unknown;
  eventsReceived?: unknown;
  excerpt?: Record<string, unknown | undefined>;
}): PlatformAnswer | undefined {
  const excerpt = parts.excerpt
    ? Object.fromEntries(Object.entries(parts.excerpt).filter(([, v]) => v !== undefined))
    : {};
  const answer: { ref?: string; eventsReceived?: number; excerpt?: Record<string, unknown> } = {};
  if (typeof parts.ref === 'string' && parts.ref !== '') answer.ref = parts.ref;
  if (typeof parts.eventsReceived === 'number') answer.eventsReceived = parts.eventsReceived;
  if (Object.keys(excerpt).length > 0) answer.excerpt = excerpt;
  return Object.keys(answer).length > 0 ? answer : undefined;
}
