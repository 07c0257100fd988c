/**
 * What the platform drivers share: mapping one stored event with the mapping its caller
 * resolved, scrubbing it, and reading config and base URLs. Knows no platform: the mapping is
 * handed in (platform.ts resolves it from the platform's own folder), so nothing here reaches
 * back into a platform folder.
 */
import type { ResolvedMapping } from '../../schemas/mapping.ts';
import type { Destination } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import { applyMapping, type MappedEvent } from '../linkage/engine.ts';
import { scrubPayload } from '../pii.ts';
import type { DestinationRequirements, DriverContext, OutboundRequest } from './driver.ts';

/** The mapped event, or why there is none. */
export type MapResult =
  | { readonly ok: true; readonly mapped: MappedEvent }
  | { readonly ok: false; readonly reason: string };

/**
 * Whether a destination's outgoing payload is scrubbed of PII patterns (docs/delivery.md): its
 * `scrub_pii`, else the platform's default (mapped payloads are scrubbed; a webhook receives the
 * stored event as it is).
 */
export function scrubsPii(destination: Readonly<Destination>, byDefault: boolean): boolean {
  return destination.scrub_pii ?? byDefault;
}

/**
 * Maps one stored event with the destination's resolved mapping (undefined: there is none),
 * then (unless the destination turns it off) scrubs emails and phone numbers from the mapped
 * URLs and text: a final pass over every target field, so fields a mapping adds later are
 * covered too.
 */
export function mapForDestination(
  mapping: ResolvedMapping | undefined,
  destination: Readonly<Destination>,
  event: StoredEvent,
): MapResult {
  if (mapping === undefined)
    return { ok: false, reason: `no mapping for event ${event.event_name} at ${destination.type}` };
  const mapped = applyMapping(mapping, event);
  if (!scrubsPii(destination, true)) return { ok: true, mapped };
  return { ok: true, mapped: { event: mapped.event, payload: scrubPayload(mapped.payload) } };
}

/** A non-secret config value as text, or undefined. */
export function configText(destination: Readonly<Destination>, key: string): string | undefined {
  const v = destination.config?.[key];
  return v === undefined ? undefined : String(v);
}

/** The base URL: the destination's override (tests, proxies) or the platform's; no trailing slash. */
export function baseUrl(destination: Readonly<Destination>, fallback: string): string {
  return (destination.base_url ?? fallback).replace(/\/+$/, '');
}

/** Why the configuration cannot produce a request (missing keys, test mode without a code), or undefined. */
export function configProblem(ctx: DriverContext, needs: DestinationRequirements): string | undefined {
  const d = ctx.destination;
  for (const k of needs.config)
    if (configText(d, k) === undefined) return `config.${k} is required for ${d.type}`;
  for (const s of needs.secrets) if (!ctx.secrets[s]) return `secret ${s} is missing for destination ${d.id}`;
  if (needs.testEventCode && d.test_mode === true && !d.test_event_code)
    return `test_mode needs test_event_code for ${d.type} (from the platform's test events tool)`;
  if (needs.noTestMode && d.test_mode === true) return `${d.type} has no test mode: ${needs.noTestMode}`;
  // Only text is checked, as the settings check does: a boolean key (`diagnostics: true`,
  // `counts: true`) is what its format asks for, never its string.
  for (const [k, format] of Object.entries(needs.configFormats ?? {})) {
    const v = d.config?.[k];
    if (typeof v === 'string' && v !== '' && !format.pattern.test(v))
      return `config.${k} must be ${format.description} for ${d.type}`;
  }
  return undefined;
}

/** Splits a list into chunks of at most `size`. */
export function chunk<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** One platform event built from a stored event, or why it cannot be sent. */
export type BuiltEvent =
  | { readonly ok: true; readonly event: Record<string, unknown>; readonly dropped?: string }
  | { readonly ok: false; readonly reason: string };

/**
 * A JSON `POST` authorised by a bearer token, as most conversion APIs take one (LinkedIn,
 * Microsoft, Reddit): the token travels in a header, never in the URL, so the URL is shown as it is.
 */
export function bearerJsonPost(
  url: string,
  token: string | undefined,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): OutboundRequest {
  return {
    method: 'POST',
    url,
    redactedUrl: url,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token ?? ''}`, ...headers },
    body: JSON.stringify(body),
  };
}
