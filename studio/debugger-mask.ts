/**
 * What the debugger shows without personal data (docs/console.md#debugger): a stored event and
 * the request a destination gets for it, each identifier as its kind (`[email]`, `[ip]`), never
 * its value, plain or hashed; e-mails and phone numbers left in text redacted (core/pii.ts). Read
 * off the same table of platform field names the ledger's `identifiers` column is
 * (core/delivery/identifiers.ts), so a field that counts there is masked here. Pure; in the studio
 * because core/console sits below core/delivery.
 */
import { requestIdentifiers } from '../core/delivery/identifiers.ts';
import { scrubPayload, scrubUrl } from '../core/pii.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** What stands in for an identifier's value. */
const kindOf = (kind: string): string => `[${kind}]`;

/** Campaign fields that say where a visit came from, not who made it (the rest are click ids). */
const CAMPAIGN_KEPT = new Set(['source', 'medium', 'name', 'term', 'content']);
/** Device fields that are not identifiers. */
const DEVICE_KEPT = new Set(['locale']);

/** Every field of a group as its kind (its own name), except the ones kept. */
function groupAsKinds(group: unknown, kept: ReadonlySet<string> = new Set()): unknown {
  if (!isObject(group)) return group;
  return Object.fromEntries(
    Object.entries(group).map(([k, v]) => [k, kept.has(k) ? scrubPayload(v) : kindOf(k)]),
  );
}

/**
 * A stored event (as core/delivery/replay.ts rebuilds it) without personal data: the ids, `user`
 * (every field, address and postcode included), the device's address, user agent and client
 * hints, the campaign's click ids and cookies, each shown as its kind; what happened (name, time,
 * data, items, consent) stays, with identifier fields in it masked the same way and e-mails and
 * phone numbers elsewhere in text redacted (core/pii.ts).
 */
export function maskStoredEvent(event: Readonly<Json>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(event)) {
    if (k === 'user_id' || k === 'anonymous_id' || k === 'session_id') out[k] = kindOf(k);
    else if (k === 'user') out[k] = groupAsKinds(v);
    else if (k === 'device') out[k] = groupAsKinds(v, DEVICE_KEPT);
    else if (k === 'campaign') out[k] = groupAsKinds(v, CAMPAIGN_KEPT);
    else if (k === 'enriched' && isObject(v))
      out[k] = {
        ...(maskIdentifiers(v) as Json),
        ...('campaign' in v ? { campaign: groupAsKinds(v['campaign'], CAMPAIGN_KEPT) } : {}),
      };
    else out[k] = maskIdentifiers(v);
  }
  return out;
}

/** A SHA-256 digest in hex, as platforms take hashed personal data. */
const isDigest = (v: unknown): boolean => typeof v === 'string' && /^[0-9a-f]{64}$/i.test(v);

/**
 * A request body (or any JSON) with each identifier's value as its kind: the fields the ledger's
 * `identifiers` names (core/delivery/identifiers.ts: `em`, `client_ip_address`, `user_id`,
 * LinkedIn's `{idType, idValue}` …) and any other field holding a SHA-256 digest (as its field's
 * name), then e-mails, phone numbers and URLs' personal parameters anywhere else redacted.
 */
export function maskIdentifiers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskIdentifiers);
  if (!isObject(value)) return scrubPayload(value);
  const pair = requestIdentifiers(
    'idType' in value && 'idValue' in value ? { idType: value['idType'], idValue: value['idValue'] } : {},
  );
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const leaf = !isObject(v) && !(Array.isArray(v) && v.some((x) => typeof x === 'object' && x !== null));
    const kinds = leaf ? requestIdentifiers({ [k]: v }) : [];
    // A digest is a person's datum hashed (Meta's ct, zp, db…), whatever the field is called.
    const hashed = leaf && (Array.isArray(v) ? v.some(isDigest) : isDigest(v)) ? k : undefined;
    const kind = k === 'idValue' ? pair[0] : (kinds[0] ?? hashed);
    const masked =
      kind === undefined ? maskIdentifiers(v) : Array.isArray(v) ? v.map(() => kindOf(kind)) : kindOf(kind);
    // defineProperty: a key named `__proto__` stays a key.
    Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Headers that carry who the person is (a forwarded address, their browser's user agent). */
const PERSON_HEADER = /^(user-agent|x-forwarded-for|x-real-ip|forwarded|true-client-ip|x-client-ip)$/i;

/** A request as preview shows it (credentials already redacted there), its identifiers as kinds. */
export function maskRequest(request: {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}): { method: string; url: string; headers: Record<string, string>; body: unknown } {
  const body =
    typeof request.body === 'string' && !request.body.trimStart().startsWith('{')
      ? formMasked(request.body)
      : maskIdentifiers(request.body);
  return {
    method: request.method,
    url: scrubUrl(request.url),
    headers: Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [
        k,
        PERSON_HEADER.test(k) ? kindOf(k.toLowerCase()) : v,
      ]),
    ),
    body,
  };
}

/** A form body (`a=1&em=…`) with its identifier fields as kinds. */
function formMasked(text: string): string {
  const form = new URLSearchParams(text);
  const masked = maskIdentifiers(Object.fromEntries(form)) as Record<string, string>;
  return new URLSearchParams(masked).toString();
}
