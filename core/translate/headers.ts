/**
 * Header sources of a translator (docs/translators.md, "Header sources"): `header:X-GitHub-Event`
 * beside body paths, for what a sender puts in a header rather than its body (the event type, a
 * delivery id). What may be read: the request's own headers, by case-insensitive name, never one
 * that carries a credential; and under a signature, never as the event id (the signed body, not
 * an unsigned header, decides a signed delivery's id). Pure.
 */
import type { TranslatorSpec } from '../../schemas/translator.ts';
import type { FieldViolation } from '../validation.ts';
import { signatureHeader, signedIdHeader } from './signature-header.ts';

/** The prefix of a header source. */
export const HEADER_SOURCE = 'header:';

/** A request's headers by lower-case name (the first value of a repeated one). */
export type RequestHeaders = Readonly<Record<string, string>>;

/** Headers that carry a credential whatever the translator: never readable. */
const CREDENTIALS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-goog-api-key',
  // A browser SDK's write key (gateway/sdk-paths.ts also sets it from a path).
  'x-write-key',
]);

/** Every vendor scheme's signature header (a translator may change its scheme later). */
const SIGNATURE_HEADERS: ReadonlySet<string> = new Set(
  (
    [
      'stripe',
      'shopify',
      'github',
      'woocommerce',
      'hubspot',
      'paddle',
      'typeform',
      'calendly',
      'paypal',
      'standard_webhooks',
      'svix',
    ] as const
  ).map((scheme) => signatureHeader({ scheme, secrets: ['x'] })),
);

/** The lower-case header name of a `header:` source, or undefined for a body path. */
export function headerOf(source: string): string | undefined {
  return source.startsWith(HEADER_SOURCE)
    ? source.slice(HEADER_SOURCE.length).trim().toLowerCase()
    : undefined;
}

/** Why a header may not be read by this spec, or undefined when it may. */
function credentialWhy(name: string, spec: TranslatorSpec): string | undefined {
  if (CREDENTIALS.has(name) || name.includes('signature'))
    return `${name} carries a credential: a translator may not read it`;
  const sig = spec.auth?.signature;
  if (SIGNATURE_HEADERS.has(name) || (sig && signatureHeader(sig) === name))
    return `${name} is a signature header: a translator may not read it`;
  return undefined;
}

const NO_HEADERS: RequestHeaders = Object.freeze({});

/** The header names a spec's sources read (fields, cases, key), found once per spec. */
const USED = new WeakMap<TranslatorSpec, ReadonlySet<string>>();

function headersUsed(spec: TranslatorSpec): ReadonlySet<string> {
  let used = USED.get(spec);
  if (!used) {
    const names = new Set<string>();
    const walk = (v: unknown): void => {
      if (typeof v === 'string') {
        const name = headerOf(v);
        if (name) names.add(name);
      } else if (Array.isArray(v)) for (const x of v) walk(x);
      else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
    };
    walk([spec.fields, spec.cases, spec.key]);
    used = names;
    USED.set(spec, used);
  }
  return used;
}

/**
 * The request's headers a translator may read: those its sources name (none, the common case,
 * costs nothing per request), by lower-case name, first values, never a credential header (refused
 * at apply too; this keeps a stored spec from older rules harmless).
 */
export function readableHeaders(
  raw: Readonly<Record<string, string | readonly string[] | undefined>>,
  spec: TranslatorSpec,
): RequestHeaders {
  const used = headersUsed(spec);
  if (used.size === 0) return NO_HEADERS;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    const name = k.toLowerCase();
    const value = Array.isArray(v) ? v[0] : v;
    if (used.has(name) && typeof value === 'string' && credentialWhy(name, spec) === undefined)
      out[name] = value;
  }
  return out;
}

/**
 * The apply checks of a spec's header sources: well-formed names, no credential header, and under
 * a signature no header for the event id (a field targeting `event_id`, or an entry of `key`)
 * but the one the scheme signs (`webhook-id`, `svix-id`).
 */
export function headerViolations(spec: TranslatorSpec, prefix: string): FieldViolation[] {
  const out: FieldViolation[] = [];
  const signed = spec.auth?.signature !== undefined;
  const check = (source: string, at: string, isId: boolean) => {
    const name = headerOf(source);
    if (name === undefined) return;
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]{1,64}$/.test(name)) {
      out.push({
        field: at,
        description: `${JSON.stringify(source)} names no header (header:X-GitHub-Event)`,
      });
      return;
    }
    const why = credentialWhy(name, spec);
    if (why) out.push({ field: at, description: why });
    else if (isId && signed && name !== signedIdHeader(spec.auth?.signature))
      out.push({
        field: at,
        description: `${name} is not signed: under a signature the signed body decides a delivery's id (a header could be changed by anyone replaying the body); take the id from the body, or leave it to the body's digest`,
      });
  };
  const sources = (source: string | readonly string[], at: string, isId: boolean) => {
    if (typeof source === 'string') check(source, at, isId);
    else for (const [j, s] of source.entries()) check(s, `${at}[${j}]`, isId);
  };
  const fields = (list: TranslatorSpec['fields'], at: string) => {
    for (const [i, f] of list.entries())
      if (f.source !== undefined) sources(f.source, `${at}[${i}].source`, f.target === 'event_id');
  };
  fields(spec.fields, `${prefix}.fields`);
  // A case's `when` chooses fields, never the id: a header may pick it, as it may name the event.
  for (const [i, c] of (spec.cases ?? []).entries()) {
    sources(c.when.source, `${prefix}.cases[${i}].when.source`, false);
    fields(c.fields, `${prefix}.cases[${i}].fields`);
  }
  for (const [i, k] of (spec.key ?? []).entries()) {
    if (typeof k === 'string') check(k, `${prefix}.key[${i}]`, true);
    else for (const [j, p] of k.entries()) check(p, `${prefix}.key[${i}][${j}]`, true);
  }
  return out;
}
