/**
 * Which columns are personal data wherever they sit (docs/creator-inference.md#personal-data,
 * issue #94): a person's e-mail, phone, name, street address, postal code, city or IP, read from
 * the column's values (an address, a list of them, `Name <addr>`, a number a message came from)
 * or its name (camelCase, separated or glued: `deliverycontactname`), in the person's object, at
 * the top or inside any other object; not inside another thing's object when the leaf itself
 * names the business's side (`owner_email` of a repository). A column marked so is kept as
 * erasable personal data even when it stays a plain event field. Pure.
 */
import { leafSide } from './evidence.ts';
import { nameWords, splitGlued } from './names.ts';
import type { RoleReading } from './roles.ts';
import type { InferredField } from './sample.ts';

/** Leaf words of a person's details: personal data wherever they sit. */
const DETAIL_WORDS = new Set([
  'email',
  'emails',
  'mail',
  'emailaddress',
  'phone',
  'phones',
  'phonenumber',
  'phonenumbers',
  'mobile',
  'telephone',
  'tel',
  'cell',
  'cellphone',
  'msisdn',
  'firstname',
  'lastname',
  'middlename',
  'fname',
  'lname',
  'fullname',
  'givenname',
  'familyname',
  'surname',
  'nickname',
  'realname',
  'address',
  'addresses',
  'addressline',
  'address1',
  'address2',
  'street',
  'line1',
  'line2',
  'city',
  'suburb',
  'zip',
  'zipcode',
  'postcode',
  'postalcode',
  'ip',
  'ipaddress',
  'birthdate',
  'dob',
  'cc',
  'bcc',
]);

/** Words before `name` that make it a person's name: `first_name`, `visitor_name`, `invoicename`. */
const NAMED_PEOPLE = new Set([
  'first',
  'last',
  'middle',
  'full',
  'given',
  'family',
  'legal',
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
  'recipient',
  'chat',
  'holder',
  'cardholder',
  'invoice',
  'delivery',
  'billing',
  'shipping',
]);

/** Parts of a name, as the leaf of a `name` object: `Name.first`, `name.givenName`. */
const NAME_PARTS = new Set(['first', 'last', 'middle', 'given', 'family', 'full']);

/** Objects whose bare `name` is the person's: the invoice, delivery or card holder's. */
const HOLDERS = new Set(['invoice', 'delivery', 'billing', 'shipping', 'card', 'cardholder', 'recipient']);

/** Words a detail's name may end with that say nothing of whose: `street_number`, `email_list`. */
const QUALIFIERS = new Set(['number', 'no', 'nr', 'num', 'list', 'value', 'values']);

/** The leaves of a message's parties, whose values may be the person's number: `from`, `to`. */
const PARTY_LEAVES = new Set(['from', 'to', 'sender', 'recipient', 'source', 'destination', 'originator']);

/** Leaves inside an address object that name no one alone: a country, a region, a kind. */
const NOT_A_STREET = /country|state|province|region|type|kind|primary|label|verified|^id$|^uuid$/;

/** Every word a glued name may be split into (`invoicezipcode` → `invoice zip code`). */
const KNOWN = new Set([
  ...DETAIL_WORDS,
  ...NAMED_PEOPLE,
  ...QUALIFIERS,
  'name',
  'home',
  'work',
  'office',
  'primary',
  'secondary',
  'post',
  'postal',
  'code',
  'line',
  'personal',
]);

/** An e-mail address standing alone in a text: a list of them, `Name <addr>`, not a `git@host:path`. */
const EMAIL_IN = /(^|[\s<,;"'(])[\w.+-]+@[\w-]+(\.[\w-]+)*\.[a-z]{2,}(?=$|[\s>,;"')])/i;
/** An e-mail address, or a `+` and 7 to 15 digits, inside a list or object written as JSON. */
const IN_JSON = /[\w.+-]+@[\w-]+\.[\w.-]*[a-z]{2,}|"\+\d{7,15}"/i;
/** A phone number written as digits alone, with or without its `+`. */
const DIGITS_PHONE = /^\+?\d{8,15}$/;
/** A WhatsApp user's id: their number and the service's suffix (`79111111111@c.us`), never a group's (`@g.us`). */
export const WHATSAPP_ID = /^\d{8,15}@(?:c\.us|s\.whatsapp\.net)$/;
/** Leaves that name an id or key: their values are references, never a detail. */
const ID_WORDS = new Set(['id', 'ids', 'uuid', 'guid', 'key', 'token', 'hash']);

/** A column's leaf words, each glued word split into the words it is made of. */
export function detailWords(column: string): string[] {
  return nameWords(column.slice(column.lastIndexOf('.') + 1)).flatMap((w) => splitGlued(w, KNOWN));
}

/** The words of the object a column sits in (`invoice_data.street` → `invoice`, `data`). */
const parentWords = (column: string) => {
  const parts = column.split('.');
  return parts.length < 2
    ? []
    : nameWords(parts[parts.length - 2] as string).flatMap((w) => splitGlued(w, KNOWN));
};

/** Whether a name (its words split) says it is a person's e-mail, phone, name, address or IP. */
function namedDetail(column: string, words: readonly string[]): boolean {
  const ends = (ws: readonly string[]) =>
    DETAIL_WORDS.has(ws.join('')) ||
    DETAIL_WORDS.has(ws[ws.length - 1] ?? '') ||
    DETAIL_WORDS.has(ws.slice(-2).join(''));
  let end = words.length;
  while (end > 1 && QUALIFIERS.has(words[end - 1] as string)) end--;
  const head = words.slice(0, end);
  const last = head[head.length - 1] ?? '';
  const parent = parentWords(column);
  return (
    ends(words) ||
    ends(head) ||
    words[0] === 'ip' ||
    words.some((w) => w.includes('phone')) ||
    (last === 'name' && head.length >= 2 && NAMED_PEOPLE.has(head[head.length - 2] as string)) ||
    (words.length === 1 && NAME_PARTS.has(last) && parent[parent.length - 1] === 'name') ||
    (['address', 'addresses'].includes(parent[parent.length - 1] ?? '') &&
      !NOT_A_STREET.test(words.join('')) &&
      !ID_WORDS.has(last))
  );
}

/** Whether a column's values say it is a person's e-mail or phone: an address inside a text, a number a message came from. */
function valuedDetail(f: InferredField, words: readonly string[]): boolean {
  // A WhatsApp id holds a phone number whatever its name (`chatId`, `wid`).
  if (f.examples.length > 0 && f.examples.every((v) => WHATSAPP_ID.test(String(v)))) return true;
  if (ID_WORDS.has(words[words.length - 1] as string)) return false;
  if (f.examples.some((v) => typeof v === 'string' && EMAIL_IN.test(v))) return true;
  return (
    words.length === 1 &&
    PARTY_LEAVES.has(words[0] as string) &&
    f.examples.length > 0 &&
    f.examples.every((v) => DIGITS_PHONE.test(String(v)))
  );
}

/**
 * Whether a column is personal data by its values, place and name: an e-mail or phone, a list
 * holding one, a text holding an address, a detail of a person's (an e-mail, phone, name,
 * address or IP named as one, glued or not) whatever object it sits in unless that object is
 * another thing's and the leaf names the business's side, or a bare `name` inside the person's
 * own object or an invoice's, delivery's or card's (`customer.name`, `invoice_data.name`). Never
 * a flag (`verified_email: true`) nor an empty column.
 */
export function personalDetail(f: InferredField, role: RoleReading): boolean {
  if (f.distinct === 0 || f.type === 'boolean') return false;
  if (f.format === 'email' || f.format === 'phone') return true;
  const words = detailWords(f.name);
  // Inside another thing's object, a leaf naming the business's side (`owner_email`) is not the person's.
  const kept = role.role !== 'other' || leafSide(words.join('_'))?.side !== 'business';
  // A list or object kept whole (Telnyx's `to: [{ phone_number }]`) is personal when it holds an
  // e-mail address or a phone number in international form, or is named as a detail (`homePhone: {}`).
  if (f.type === 'json')
    return (
      f.examples.some((v) => IN_JSON.test(JSON.stringify(v) ?? '')) || (kept && namedDetail(f.name, words))
    );
  if (namedDetail(f.name, words) || valuedDetail(f, words)) return kept;
  if (words.join('') !== 'name') return false;
  if (role.role === 'person' && role.why !== '') return true;
  return parentWords(f.name).some((w) => HOLDERS.has(w));
}
