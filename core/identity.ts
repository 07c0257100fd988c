/**
 * A stored event's identity (docs/architecture.md §1, "Storage first, by construction"):
 * `event_id` says which event a producer meant, `payload_digest` what it said. Two messages
 * with the same id and the same content (a retry, a redelivery, a replay) are one event; the same
 * id with other content (Segment's spec examples share one messageId between a page and an
 * identify call; Stripe fixtures share `evt_000…`) is another event, stored and delivered on its
 * own and listed by the `event_id_conflicts` view.
 *
 * The digest is also the warehouse insertId, so BigQuery's best-effort de-duplication can only
 * ever fold copies of the same content, never drop a different event that reused an id.
 */
import { hash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so the same content gives the same text whatever
 * order the producer wrote its fields in. Arrays keep their order (it is content). A key whose
 * value is undefined is left out, as JSON.stringify leaves it out; any other value JSON has no
 * text for (undefined in an array, a function) is `null`. This runs for every stored event: a
 * copy with its keys inserted in order goes through one JSON.stringify where that is exact, and
 * append() writes the rest.
 */
export function canonicalJson(value: unknown): string {
  const copy = sortedCopy(value);
  return copy === UNUSUAL ? append('', value) : (JSON.stringify(copy) ?? 'null');
}

/** What sortedCopy answers for a value whose text it cannot vouch for: append() writes it. */
const UNUSUAL = Symbol('unusual');

/**
 * A copy whose objects have their keys inserted in sorted order, for ONE JSON.stringify (far
 * faster than a call per value). Only where that gives the canonical text exactly: plain objects
 * and arrays of JSON values. A key that starts with a digit (V8 lists array-index keys first,
 * in numeric order, whatever the insertion order), `__proto__` (an assignment would set the
 * prototype), a function or symbol member (JSON.stringify leaves it out, the definition writes
 * null) or any other kind of object (toJSON) makes it UNUSUAL.
 */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' || typeof value === 'symbol' ? UNUSUAL : value;
  }
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const v = sortedCopy(value[i]);
      if (v === UNUSUAL) return UNUSUAL;
      out[i] = v;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return UNUSUAL;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const c = k.charCodeAt(0);
    if ((c >= 48 && c <= 57) || k === '__proto__') return UNUSUAL;
    const v = o[k];
    if (v === undefined) continue;
    const copy = sortedCopy(v);
    if (copy === UNUSUAL) return UNUSUAL;
    out[k] = copy;
  }
  return out;
}

function append(out: string, value: unknown): string {
  if (value === null || typeof value !== 'object') return out + (JSON.stringify(value) ?? 'null');
  if (Array.isArray(value)) {
    out += '[';
    for (let i = 0; i < value.length; i++) out = append(i === 0 ? out : `${out},`, value[i]);
    return `${out}]`;
  }
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).sort();
  let first = true;
  out += '{';
  for (const k of keys) {
    const v = o[k];
    if (v === undefined) continue;
    out = append(`${first ? out : `${out},`}${JSON.stringify(k)}:`, v);
    first = false;
  }
  return `${out}}`;
}

/**
 * SHA-256 (hex) of the canonical normalised event: event_id, event_time, event_name, context and
 * data. Computed before the warehouse's PII policy, so it names the content the producer sent;
 * being a digest of the whole event, it reveals no field on its own.
 */
export function payloadDigest(event: object): string {
  return hash('sha256', canonicalJson(event), 'hex');
}

/** A normalised event as far as its identity reads it. */
interface IdentityView {
  readonly event_time?: string;
  readonly device?: Readonly<Record<string, unknown>>;
  readonly campaign?: Readonly<Record<string, unknown>>;
}

/** The groups whose fields the server may fill (`device.ip`, `campaign.ga_client_id`). */
const FILLED_GROUPS = ['device', 'campaign'] as const;

/**
 * The event's identity digest: payloadDigest over what the producer sent, without the fields the
 * server filled in (core/event.ts, ServerField: the receive time as event_time, the request's
 * address, user agent and client hints, GA4's client id from the page's cookie). A retry of the same body — a minute later, from another
 * address, through another gateway instance or path — has the same digest. With no server field
 * it is exactly payloadDigest(event), so a row stored by an older release (which digested the
 * whole event) and a redelivery digested now agree wherever the producer sent every field.
 */
export function identityDigest(event: IdentityView, serverFields: readonly string[] | undefined): string {
  if (!serverFields || serverFields.every((f) => f === 'event_id')) return payloadDigest(event);
  const view: Record<string, unknown> = { ...event };
  const groups: Partial<Record<(typeof FILLED_GROUPS)[number], Record<string, unknown>>> = {};
  for (const f of serverFields) {
    // A minted event_id stays: it is what tells two equal bodies without an id apart.
    if (f === 'event_time' || f === 'session_id') delete view[f];
    else
      for (const g of FILLED_GROUPS) {
        const from = event[g];
        if (!from || !f.startsWith(`${g}.`)) continue;
        groups[g] ??= { ...from };
        delete groups[g][f.slice(g.length + 1)];
      }
  }
  for (const g of FILLED_GROUPS) {
    const group = groups[g];
    if (!group) continue;
    if (Object.keys(group).length > 0) view[g] = group;
    else delete view[g];
  }
  return payloadDigest(view);
}

/** The identity key of a stored event as the ledger and the checks compare it. */
export function identityKey(eventId: string, digest: string | null | undefined): string {
  return `${eventId}/${digest ?? ''}`;
}

/**
 * The delivery id: hex SHA-256 of `event_id LF payload_digest LF destination id` (an empty digest
 * for an event stored without one). The same for every attempt, redelivery, instance and replay
 * of one stored event (its identity: id and digest, core/identity.ts) to one destination, and
 * another for another event that reused the id or for another destination. It names the
 * send-once claim (core/claims/send-once.ts) and is the webhook's `X-Eventbus-Delivery-Id`, on
 * which a receiver de-duplicates. Neither part can hold a newline (event ids are visible ASCII,
 * digests hex, destination ids `[a-z0-9_-]`), so no two triples share a text.
 */
export const deliveryId = (eventId: string, payloadDigest: string | undefined, destination: string): string =>
  hash('sha256', `${eventId}\n${payloadDigest ?? ''}\n${destination}`, 'hex');
