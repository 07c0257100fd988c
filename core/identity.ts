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
import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so the same content gives the same text whatever
 * order the producer wrote its fields in. Arrays keep their order (it is content).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 (hex) of the canonical normalised event: event_id, event_time, event_name, context and
 * data. Computed before the warehouse's PII policy, so it names the content the producer sent;
 * being a digest of the whole event, it reveals no field on its own.
 */
export function payloadDigest(event: object): string {
  return createHash('sha256').update(canonicalJson(event)).digest('hex');
}

/** The identity key of a stored event as the ledger and the checks compare it. */
export function identityKey(eventId: string, digest: string | null | undefined): string {
  return `${eventId}/${digest ?? ''}`;
}
