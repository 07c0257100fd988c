/**
 * What an identity, personal or money field needs beyond its name before the creator fills it
 * (docs/creator-inference.md#evidence-beyond-the-name, issue #94): an e-mail that reads as one, a
 * phone that parses, a person's id named as the person's and shaped as an id, a currency column
 * holding codes; a leaf named for the business's side (`account_id`, `host_id`, `ownerEmail`) is
 * never the person's. Which columns are personal data wherever they sit is personal.ts's. Pure.
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
 * Head nouns of a collection or a class the person is put in, or a thing sent to them: a list, an
 * audience, a segment, a group, a form, a campaign, a plan (`customerList`, `customer_group_id`,
 * `subscriber_segment`). The id of one names that thing, shared by everyone in it, not the person.
 */
const COLLECTION = new Set(
  'list audience segment group cohort tag label form newsletter campaign category type tier plan'.split(' '),
);

/**
 * The collection a column's id names (module comment), by the leaf's head noun: its last word
 * that is no id word (`customerList` → list, `contact_list_id` → list), in the singular; undefined
 * when the head is anything else (`list_customer_id` is a customer's, `group_member_id` a member's).
 */
export function collectionNamed(column: string): string | undefined {
  const words = leafWords(column);
  while (words.length > 1 && ID_LEAF.has(words.at(-1) as string)) words.pop();
  const head = words.at(-1) ?? '';
  const singular = head.endsWith('ies') ? `${head.slice(0, -3)}y` : head.replace(/s$/, '');
  return COLLECTION.has(head) ? head : COLLECTION.has(singular) ? singular : undefined;
}

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
  'telefone',
  'telefono',
  'telefon',
  'celular',
]);
const digits = (v: unknown) => String(v).replace(/\D/g, '').length;
/** A phone number written as text of digits alone, its `+` optional: 8 to 15 of them (E.164's most). */
const DIGIT_TEXT = /^\+?\d{8,15}$/;
/** A date written as eight digits (`20260115`): no phone, whatever its name. */
const COMPACT_DATE = /^(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$/;
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
 * the person's own object (`customer.id`), never from an e-mail, a URL, a time or a flag, nor
 * from the id of a collection the person is in (`customerList`, `customer_group_id`).
 */
/** Whether a column's leaf is named as a phone (`phone`, `mobile_phone`, `checkout_phone`, `telefone`). */
export function phoneNamed(column: string): boolean {
  const words = leafWords(column);
  return words.some((w) => PHONE_WORDS.has(w)) || PHONE_WORDS.has(words.join(''));
}

export function identityEvidence(target: string, f: InferredField, role: RoleReading): string | undefined {
  const words = leafWords(f.name);
  const first = f.examples[0];
  const shown = JSON.stringify(first)?.slice(0, 30) ?? String(first);
  if (target === 'user.email')
    return f.format === 'email' ? undefined : `its values (${shown}) are not e-mail addresses`;
  if (target === 'user.phone') {
    const named = phoneNamed(f.name);
    const number = f.type === 'integer' && f.examples.every((v) => digits(v) >= 7 && digits(v) <= 15);
    // Under a phone's name, text of digits alone is a number written without its separators
    // (`5511999997777`); under any other name such text is as likely an id, and is not read so,
    // nor is text the values read as something else (a date, epoch seconds).
    const text =
      named &&
      f.type === 'string' &&
      f.format === undefined &&
      f.pattern === undefined &&
      f.examples.length > 0 &&
      f.examples.every((v) => DIGIT_TEXT.test(String(v)) && !COMPACT_DATE.test(String(v)));
    if (!(f.format === 'phone' || number || text))
      return `its values (${shown}) do not read as phone numbers`;
    if (!named && !f.examples.every((v) => String(v).trim().startsWith('+')))
      return `nothing in its name says phone, and its values (${shown}) have no country code`;
    return undefined;
  }
  if (target !== 'user_id' && target !== 'user.external_id') return undefined;
  const collection = collectionNamed(f.name);
  if (collection)
    return `"${collection}" is what its name is the id of: a ${collection} the person may be in, shared by everyone in it, not the person's`;
  if (f.format && f.format !== 'uuid') return `its values are ${f.format}s, not ids`;
  if (f.type !== 'string' && f.type !== 'integer') return `its values are ${f.type}, not ids`;
  if (!f.examples.every(idShaped)) return `its values (${shown}) are not shaped as ids`;
  const named = leafSide(f.name)?.side === 'person';
  const ownId =
    words.length === 1 && ID_LEAF.has(words[0] as string) && role.role === 'person' && role.why !== '';
  return named || ownId ? undefined : 'an id, but nothing in its name or place says it is the person’s';
}
