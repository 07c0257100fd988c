/**
 * What an identity, personal or money field needs beyond its name before the creator fills it
 * (docs/creator-inference.md#evidence-beyond-the-name, issue #94): an e-mail that reads as one, a
 * phone that parses, a person's id named as the person's and shaped as an id, a currency column
 * holding codes; a leaf named for the business's side (`account_id`, `host_id`, `ownerEmail`) is
 * never the person's. And which columns are personal data wherever they sit. Pure.
 */
import { nameWords } from './names.ts';
import type { RoleReading } from './roles.ts';
import type { InferredField } from './sample.ts';

/** Leaf words that name the person an event is about: a `merchant_customer_id` is a customer's. */
const PERSON_LEAF = new Set([
  'customer',
  'user',
  'member',
  'buyer',
  'payer',
  'contact',
  'subscriber',
  'client',
  'patron',
  'attendee',
  'invitee',
  'participant',
  'visitor',
  'lead',
  'respondent',
  'guest',
  'student',
  'donor',
  'applicant',
  'recipient',
  'shopper',
  'person',
  'signer',
  'learner',
]);

/** Leaf words that name the business's side, or a thing that is nobody's person. */
const BUSINESS_LEAF = new Set([
  'account',
  'merchant',
  'shop',
  'store',
  'organizer',
  'organiser',
  'host',
  'owner',
  'tenant',
  'company',
  'organization',
  'organisation',
  'org',
  'workspace',
  'site',
  'app',
  'portal',
  'seller',
  'vendor',
  'payee',
  'receiver',
  'agent',
  'admin',
  'staff',
  'employee',
  'webhook',
  'location',
  'team',
  'business',
  'brand',
  'partner',
  'affiliate',
  'instance',
  'project',
  'domain',
  'campaign',
  'stats',
  'subscription',
  'messaging',
  'calendar',
]);

const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1));

/**
 * Whose the leaf's own words say a column is: a person word wins (`app_user_id`,
 * `merchant_customer_id`), else a business word (`account_id`, `webhook_owner_id`), else nothing.
 */
export function leafSide(column: string): { side: 'person' | 'business'; word: string } | undefined {
  const words = leafWords(column);
  const person = words.find((w) => PERSON_LEAF.has(w));
  if (person) return { side: 'person', word: person };
  const business = words.find((w) => BUSINESS_LEAF.has(w));
  return business ? { side: 'business', word: business } : undefined;
}

const ID_LEAF = new Set(['id', 'uuid', 'guid', 'key', 'code', 'number', 'no']);

/**
 * The id of the person's own object (`customer.id`, `sender.contact.id`), when no column names the
 * person's id: the shallowest `id` or `uuid` leaf whose object's name is a person's (`customer`,
 * `contact`, `member`…, not an address or a profile) and whose values are shaped as ids.
 */
export function personObjectId(
  fields: readonly InferredField[],
  role: (column: string) => RoleReading,
): string | undefined {
  const candidates = fields.filter((f) => {
    const parts = f.name.split('.');
    const leaf = nameWords(parts[parts.length - 1] ?? '');
    const owner = nameWords(parts[parts.length - 2] ?? '');
    if (parts.length < 2 || leaf.length !== 1 || !['id', 'uuid'].includes(leaf[0] as string)) return false;
    if (owner.length !== 1 || !PERSON_LEAF.has(owner[0] as string)) return false;
    return identityEvidence('user.external_id', f, role(f.name)) === undefined;
  });
  return candidates.sort((a, b) => a.name.split('.').length - b.name.split('.').length)[0]?.name;
}
const PHONE_WORDS = new Set([
  'phone',
  'phonenumber',
  'mobile',
  'tel',
  'telephone',
  'cell',
  'cellphone',
  'msisdn',
]);
const digits = (v: unknown) => String(v).replace(/\D/g, '').length;
/** An id's shape: one token of letters, digits and `_-:.$`, with a digit in it (`cus_9s6XK`, `1234`, a UUID). */
const idShaped = (v: unknown) =>
  typeof v === 'number'
    ? Number.isInteger(v)
    : typeof v === 'string' && /^[\w\-:.$]+$/.test(v) && /\d/.test(v);

/**
 * Why a column may not take an identity target on its name alone, or undefined when its values
 * (and, for an id, whose it is named) back the name: the person's e-mail only from e-mail
 * addresses, a phone only from numbers that parse as one (with a `+` when the name says nothing
 * of a phone), a person's id only from an id named as the person's (`customer_id`) or the id of
 * the person's own object (`customer.id`), never from an e-mail, a URL, a time or a flag.
 */
export function identityEvidence(target: string, f: InferredField, role: RoleReading): string | undefined {
  const words = leafWords(f.name);
  const first = f.examples[0];
  const shown = JSON.stringify(first)?.slice(0, 30) ?? String(first);
  if (target === 'user.email')
    return f.format === 'email' ? undefined : `its values (${shown}) are not e-mail addresses`;
  if (target === 'user.phone') {
    const named = words.some((w) => PHONE_WORDS.has(w)) || PHONE_WORDS.has(words.join(''));
    const number = f.type === 'integer' && f.examples.every((v) => digits(v) >= 7 && digits(v) <= 15);
    if (!(f.format === 'phone' || number)) return `its values (${shown}) do not read as phone numbers`;
    if (!named && !f.examples.every((v) => String(v).trim().startsWith('+')))
      return `nothing in its name says phone, and its values (${shown}) have no country code`;
    return undefined;
  }
  if (target !== 'user_id' && target !== 'user.external_id') return undefined;
  if (f.format && f.format !== 'uuid') return `its values are ${f.format}s, not ids`;
  if (f.type !== 'string' && f.type !== 'integer') return `its values are ${f.type}, not ids`;
  if (!f.examples.every(idShaped)) return `its values (${shown}) are not shaped as ids`;
  const named = leafSide(f.name)?.side === 'person';
  const ownId =
    words.length === 1 && ID_LEAF.has(words[0] as string) && role.role === 'person' && role.why !== '';
  return named || ownId ? undefined : 'an id, but nothing in its name or place says it is the person’s';
}

/** Leaf words of a person's details: personal data wherever they sit. */
const DETAIL_WORDS = new Set([
  'email',
  'mail',
  'phone',
  'phonenumber',
  'mobile',
  'telephone',
  'firstname',
  'lastname',
  'fname',
  'lname',
  'fullname',
  'givenname',
  'familyname',
  'surname',
  'nickname',
  'realname',
  'address',
  'address1',
  'address2',
  'street',
  'line1',
  'line2',
  'city',
  'zip',
  'zipcode',
  'postcode',
  'postalcode',
  'ip',
  'ipaddress',
  'birthdate',
  'dob',
]);

/** An e-mail address, or a `+` and 7 to 15 digits, inside a list or object written as JSON. */
const IN_JSON = /[\w.+-]+@[\w-]+\.[\w.-]*[a-z]{2,}|"\+\d{7,15}"/i;

/** Words before `name` that make it a person's name: `first_name`, `visitor_name`, `to_name`. */
const NAMED_PEOPLE = new Set([
  'first',
  'last',
  'full',
  'given',
  'family',
  'user',
  'real',
  'nick',
  'display',
  'visitor',
  'customer',
  'contact',
  'to',
  'from',
  'sender',
  'chat',
]);

/**
 * Whether a column is personal data by its values, place and name: an e-mail or phone, a list
 * holding one, a detail of a person's (an e-mail, phone, name, address or IP named as one)
 * whatever object it sits in, or a bare `name` inside the person's own object (`customer.name`,
 * `billing.address.name`). Never a flag (`verified_email: true`).
 */
export function personalDetail(f: InferredField, role: RoleReading): boolean {
  if (f.distinct === 0 || f.type === 'boolean') return false;
  if (f.format === 'email' || f.format === 'phone') return true;
  // A list or object kept whole (Telnyx's `to: [{ phone_number }]`) is personal when it holds an
  // e-mail address or a phone number in international form.
  if (f.type === 'json') return f.examples.some((v) => IN_JSON.test(JSON.stringify(v) ?? ''));
  const words = leafWords(f.name);
  const joined = words.join('');
  const last = words[words.length - 1] ?? '';
  const detail =
    DETAIL_WORDS.has(joined) ||
    DETAIL_WORDS.has(last) ||
    DETAIL_WORDS.has(words.slice(-2).join('')) ||
    words[0] === 'ip' ||
    (last === 'name' && words.length >= 2 && NAMED_PEOPLE.has(words[words.length - 2] as string));
  if (detail) return role.role !== 'other' || leafSide(f.name)?.side === 'person';
  return joined === 'name' && role.role === 'person' && role.why !== '';
}
