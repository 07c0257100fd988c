/**
 * Whose a nested or prefixed column is (docs/creator-inference.md#roles): the person's (a payer,
 * a buyer, the number a text came from), the business's (the payee, the merchant, the shop, the
 * number a text was sent to), or some other object's (an issue, a repository). A phone, e-mail or
 * address is a person's detail only when its column is the person's. Pure.
 */
import { nameWords } from './names.ts';
import type { InferredField } from './sample.ts';

export type Role = 'person' | 'business' | 'other';

/** Objects that hold the person's details. */
export const PERSON_WORDS =
  /^(billing|shipping|customer|user|address|contact|buyer|person|profile|details|member|client|lead|location|geo|payer|visitor|subscriber|invitee|respondent|from|caller|participant|attendee|recipient|guest|patron|student|signer|donor)/;
/** Objects and prefixes that are the business's own: whoever is paid, sells, receives or serves. */
const BUSINESS_WORDS =
  /^(payee|merchant|seller|shop|store|vendor|business|to|called|account|organizer|organiser|host|tenant|company|organization|organisation|workspace|receiver|site|app|instance|domain|owner|agent|assignee)$/;
/** Envelopes around a payload's own fields (Stripe's `data.object`, JSON:API's `data.attributes`). */
export const WRAPPERS: ReadonlySet<string> = new Set([
  'data',
  'object',
  'attributes',
  'payload',
  'body',
  'resource',
  'record',
  'event',
  'properties',
]);
/** Parts of a person's details, not whose they are: `payer.name.given_name` is the payer's. */
const DETAIL_PARTS = new Set(['name', 'phone', 'phonenumber', 'phones', 'email', 'emailaddress', 'emails']);
/** Values of an object's own `type` (or `object`, `role`) that say it is a person: Intercom's `data.item.type: user`. */
const PERSON_TYPES = /^(user|contact|lead|customer|visitor|person|subscriber|member|buyer|payer)$/i;

const words = (s: string) => nameWords(s).join('');

/** What a column's role rests on, for its evidence. */
export interface RoleReading {
  readonly role: Role;
  /** Why, in words the page shows ("inside payee: the business's"). Empty for a top-level column. */
  readonly why: string;
}

/**
 * The role of a column: a leaf prefixed `To…`/`Called…` (Twilio's receiving number and its place)
 * is the business's, `From…`/`Caller…` the person's; else the nearest parent that is neither an
 * envelope nor a detail part decides (`resource.payee.email_address` the business's,
 * `resource.payer.name.given_name` the payer's), an object whose own `type` names a person
 * (`data.item` with `type: user`) is the person's, any other object is some other thing's, and
 * a column with only envelopes around it is the payload's own (the person's).
 */
export function roleOf(
  column: string,
  typeOf: (objectPath: string) => unknown,
  direction?: Direction,
): RoleReading {
  const parts = column.split('.');
  const leafWords = nameWords(parts[parts.length - 1] ?? '');
  const head = leafWords[0] ?? '';
  // A message the business sent (an e-mail's `activity.sent`) turns the sides round: its sender
  // is the business, its recipient the person.
  if (leafWords.length > 0 && /^(to|called)$/.test(head))
    return direction === 'out'
      ? { role: 'person', why: `"${head}" names the receiving side of a message sent out: the person's` }
      : { role: 'business', why: `"${head}" names the receiving side: the business's, not the person's` };
  if (/^(from|caller)$/.test(head))
    return direction === 'out'
      ? {
          role: 'business',
          why: `"${head}" names the sending side, and the payload says the message went out: the business's, not the person's`,
        }
      : { role: 'person', why: `"${head}" names the sending side: the person's` };
  for (let i = parts.length - 2; i >= 0; i--) {
    const p = words(parts[i] as string);
    if (WRAPPERS.has(p) || DETAIL_PARTS.has(p)) continue;
    const name = parts[i] as string;
    if (BUSINESS_WORDS.test(p))
      return { role: 'business', why: `inside ${name}: the business's, not the person's` };
    // A message's sender is the person only when the message came in; one sent out was the
    // business's, and with no word of direction the object is no evidence either way.
    if (p === 'sender')
      return direction === 'in'
        ? { role: 'person', why: `inside ${name} of a message that came in: the person's` }
        : direction === 'out'
          ? {
              role: 'business',
              why: `inside ${name} of a message sent out: the business's, not the person's`,
            }
          : { role: 'other', why: `inside ${name}, and nothing says which way the message went` };
    if (PERSON_WORDS.test(p)) return { role: 'person', why: `inside ${name}: the person's` };
    const path = parts.slice(0, i + 1).join('.');
    const type = typeOf(path);
    if (typeof type === 'string' && PERSON_TYPES.test(type))
      return { role: 'person', why: `inside ${name}, whose type is "${type}": the person's` };
    return { role: 'other', why: `inside ${name}, not a person's object` };
  }
  return { role: 'person', why: '' };
}

/** Which way the payload's message went: in from the person, out from the business, or unknown. */
export type Direction = 'in' | 'out' | undefined;

/** Names of the columns that say what kind of event or message a payload is. */
const KIND_NAMES = new Set([
  'type',
  'event',
  'eventtype',
  'typewebhook',
  'direction',
  'status',
  'kind',
  'action',
  'topic',
]);
const WAY_OUT = new Set([
  'outbound',
  'outgoing',
  'sent',
  'send',
  'delivered',
  'opened',
  'clicked',
  'bounced',
]);
const WAY_IN = new Set(['inbound', 'incoming', 'received', 'receive', 'reply', 'replied']);

/**
 * Which way the message went, from the values of the payload's kind columns (`type: activity.sent`,
 * `direction: inbound`, `typeWebhook: incomingMessageReceived`): a word of direction (`inbound`,
 * `outgoing`) settles it, else `sent` or `received`; both, or neither, leave it unknown.
 */
export function directionOf(fields: readonly InferredField[]): Direction {
  const found = { in: false, out: false, explicitIn: false, explicitOut: false };
  for (const f of fields) {
    const parts = f.name.split('.');
    if (parts.length > 3 || !KIND_NAMES.has(nameWords(parts[parts.length - 1] ?? '').join(''))) continue;
    for (const v of f.examples) {
      if (typeof v !== 'string') continue;
      const w = nameWords(v);
      if (w.includes('inbound') || w.includes('incoming')) found.explicitIn = true;
      if (w.includes('outbound') || w.includes('outgoing')) found.explicitOut = true;
      if (w.some((x) => WAY_IN.has(x))) found.in = true;
      if (w.some((x) => WAY_OUT.has(x))) found.out = true;
    }
  }
  if (found.explicitIn !== found.explicitOut) return found.explicitIn ? 'in' : 'out';
  if (found.explicitIn) return undefined;
  if (found.in !== found.out) return found.in ? 'in' : 'out';
  return undefined;
}

/** The object's own `type`, `object` or `role` value when the sample holds one value there. */
export function objectTypes(fields: readonly InferredField[]): (objectPath: string) => unknown {
  const byName = new Map(fields.map((f) => [f.name, f]));
  return (path) => {
    for (const key of ['type', 'object', 'role', 'kind']) {
      const f = byName.get(`${path}.${key}`);
      if (f?.distinct === 1) return f.examples[0];
    }
    return undefined;
  };
}

/** Lifecycle words a status or `state` takes: never a region. */
export const STATUS_VALUES =
  /^(completed?|pending|active|inactive|open|closed|failed|paid|unpaid|refunded|partially_refunded|cancell?ed|approved|denied|created|processing|draft|succeeded|expired|voided|captured|reversed|on_hold|held|new|done|received|sent|delivered|queued|accepted|rejected)$/i;

/** Words of a place: a `state` beside one is an address's state. */
const PLACE_WORDS = new Set([
  'city',
  'town',
  'country',
  'zip',
  'postal',
  'postcode',
  'address',
  'street',
  'province',
]);

/**
 * Why a column named like a region is not one, or undefined: its values are a lifecycle's
 * (PayPal's `resource.state: "completed"`), or nothing of a place stands beside it (no city,
 * country, postal code or street in the same object).
 */
export function notARegion(column: string, f: InferredField, columns: readonly string[]): string | undefined {
  const examples = f.examples.filter((v): v is string => typeof v === 'string');
  if (examples.length > 0 && examples.every((v) => STATUS_VALUES.test(v.trim())))
    return `its values (${examples.map((v) => `"${v}"`).join(', ')}) are a status, not a region`;
  const cut = column.lastIndexOf('.');
  const parent = cut < 0 ? '' : column.slice(0, cut + 1);
  const placed = columns.some(
    (c) =>
      c !== column &&
      c.startsWith(parent) &&
      !c.slice(parent.length).includes('.') &&
      nameWords(c.slice(parent.length)).some((w) => PLACE_WORDS.has(w)),
  );
  return placed ? undefined : 'no city, country, postal code or street beside it: not an address’s region';
}

/** Whether a column's name says it is a version (`ApiVersion`, `event_version`): never a time or an amount. */
export function versionNamed(column: string): boolean {
  return nameWords(column.slice(column.lastIndexOf('.') + 1)).some((w) => w === 'version' || w === 'ver');
}
