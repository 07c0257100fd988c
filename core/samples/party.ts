/**
 * Whose a field is, read as a party (docs/creator-inference.md#parties, issue #94): a person's
 * detail (an id, an e-mail, a phone, a name, an address) belongs to the nearest party its path
 * names, the column's own name included. `assignedUserId` is the assigned user's (an agent, the
 * business's), `company.address.city` the company's (the address says what the detail is, not
 * whose), `merchant_customer_id` the customer's (the last party word of a name is its head). A
 * business party's details are never filled as the person's; a detail that names no party, in
 * an object where a business party keeps details of its own, is asked about, unless the payload
 * says it is about a person (`event_type: person.created`). Pure.
 */
import { accountUser } from './account-user.ts';
import { bookedResource } from './booked-resource.ts';
import { deskActor } from './desk-actor.ts';
import { leafSide } from './evidence.ts';
import { nameWords } from './names.ts';
import { personalDetail } from './personal.ts';
import type { Question, QuestionColumn } from './questions.ts';
import { type Direction, type RoleReading, roleOf, WRAPPERS } from './roles.ts';
import type { InferredField } from './sample.ts';
import { actorAbove } from './two-evidence.ts';

/**
 * The person the event is about, the business's side, or another person tied to the event's
 * person (`related`: an emergency contact, a guardian), whose details are theirs, not the person's.
 */
export type Party = 'person' | 'business' | 'related';

/** A party found on a column's path: which, the word that says so, and where it stands. */
export interface PartyReading {
  readonly party: Party;
  readonly word: string;
  /** The path segment holding the word: the column's own name, or an object above it. */
  readonly segment: string;
  readonly own: boolean;
}

/** Words that name the business's side: whoever sells, is paid, hosts, owns, or serves the person. */
const BUSINESS_PARTY = new Set([
  'company',
  'organization',
  'organisation',
  'org',
  'account',
  'business',
  'merchant',
  'seller',
  'vendor',
  'shop',
  'store',
  'host',
  'organizer',
  'organiser',
  'owner',
  'agent',
  'assignee',
  'operator',
  'staff',
  'admin',
  'employee',
  'tenant',
  'workspace',
  'team',
  'payee',
  'receiver',
  'brand',
  'partner',
  'affiliate',
  'salesperson',
  'creator',
  // Who earns from, refers, sells to or acts for the person (docs/creator-inference.md,
  // "A referring party, a request for money and an object named event"): a promoter beside
  // the lead it brought.
  'promoter',
  'referrer',
  'reseller',
  'ambassador',
  'advocate',
]);

/**
 * Words that name another person tied to the event's person (docs/creator-inference.md, "A
 * record's status callback and another person's contact"): someone the person names to be called
 * in an emergency (`emergency_contact_phone`, `emergencyContact.phoneNumber`), their family or next
 * of kin, who answers for them (a guardian, a guarantor, a co-signer, a sponsor), who witnesses
 * their signature, who acts for them or oversees them at work (an assistant, a manager, a
 * supervisor). A profile, an application or a sign-up form carries their details beside the
 * person's own; they are personal data, but never the person's. A relation word anywhere in a
 * name wins over a person word beside it (`emergency_contact` is not the person's contact). Not
 * `beneficiary`, whom Microsoft's marketplace and iDenfy name for the person themselves, nor
 * `partner` or `referrer`, read as the business's side above.
 */
export const RELATED_PARTY: ReadonlySet<string> = new Set([
  'emergency',
  'kin',
  'relative',
  'relatives',
  'guardian',
  'guardians',
  'spouse',
  'husband',
  'wife',
  'mother',
  'father',
  'sibling',
  'dependent',
  'dependant',
  'caregiver',
  'carer',
  'guarantor',
  'cosigner',
  'sponsor',
  'nominee',
  'witness',
  'assistant',
  'manager',
  'supervisor',
]);
/**
 * A `parent` is a person only before a contact detail (`parent_email`, `parentPhone`,
 * `parents_name`): alone it names a parent record far more often (`parent_id`, `parent_order`).
 */
const PARENT = new Set(['parent', 'parents']);
const CONTACT_DETAIL = new Set(['email', 'mail', 'phone', 'mobile', 'tel', 'name', 'first', 'last', 'full']);

/** The relation word a segment's words name (module comment of RELATED_PARTY), or undefined. */
function relationWord(words: readonly string[]): string | undefined {
  const related = words.find((w) => RELATED_PARTY.has(w));
  if (related) return related;
  const [head, ...rest] = words;
  return head && PARENT.has(head) && rest.length > 0 && rest.every((w) => CONTACT_DETAIL.has(w))
    ? head
    : undefined;
}

/**
 * Relation words of work, whose objects hold a bot or a desk's staff as often as a person
 * (Kustomer's `assistant`, a directory's `manager`): no detail under them is marked by
 * relatedDetail.
 */
const WORK_RELATION = new Set(['assistant', 'manager', 'supervisor']);

/**
 * Whether a column is a detail of a person tied to the event's person (RELATED_PARTY): any of them,
 * not only the e-mail and phone personal.ts reads by name (an emergency contact's
 * `relationship`, a guardian's `notes`), once it holds a value and is not a flag. Not under a
 * relation of work (WORK_RELATION), and `emergency` only as a contact (`emergency_contact_*`,
 * never an insurance's `HomeEmergencyPremium`). Personal data, never the person's.
 */
export function relatedDetail(f: InferredField): boolean {
  if (f.distinct === 0 || f.type === 'boolean') return false;
  const p = partyOf(f.name);
  if (p?.party !== 'related' || WORK_RELATION.has(p.word)) return false;
  return p.word !== 'emergency' || nameWords(p.segment).includes('contact');
}

/** Whether a column is personal data: a person's detail by personal.ts, or a related person's (above). */
export const personalData = (f: InferredField, role: RoleReading) =>
  personalDetail(f, role) || relatedDetail(f);

/** Words that name the person an event is about. */
export const PERSON_PARTY = new Set([
  'customer',
  'buyer',
  'person',
  'contact',
  'recipient',
  'attendee',
  'invitee',
  'subscriber',
  'user',
  'member',
  'client',
  'lead',
  'payer',
  'visitor',
  'guest',
  'participant',
  'respondent',
  'patron',
  'student',
  'signer',
  'donor',
  'shopper',
  'applicant',
  'learner',
]);

/** Whether a word names a person party, its plural too (`users`, `contacts`). */
export const personWord = (w: string) =>
  PERSON_PARTY.has(w) || (w.endsWith('s') && PERSON_PARTY.has(w.slice(0, -1)));

/**
 * Words that make whoever a name names the one acting for the business: an `assigned` user, a
 * user `responsible` for a record, the one a record was `created by`.
 */
const ACTING = new Set(['assigned', 'responsible', 'handling', 'handled', 'managed', 'managing']);
const BY_STEP = new Set(['created', 'updated', 'modified', 'closed', 'deleted', 'edited']);

/**
 * Words that say what a detail is, not whose: stripped from the end of a name before its head is
 * read (`merchant_customer_id` is a customer's id; `admin_graphql_api_id` names no party).
 */
const DETAIL_WORDS = new Set([
  'id',
  'ids',
  'uuid',
  'guid',
  'key',
  'code',
  'no',
  'number',
  'num',
  'email',
  'mail',
  'address',
  'addresses',
  'phone',
  'mobile',
  'tel',
  'name',
  'first',
  'last',
  'full',
  'given',
  'family',
  'display',
  'details',
  'detail',
  'info',
  'profile',
  'city',
  'region',
  'state',
  'zip',
  'postal',
  'country',
  'ip',
]);

/**
 * The party one path segment names, or undefined: an acting word anywhere (`assignedUserId`),
 * else its head, the last word once detail words are taken off its end (`merchant_customer_id`
 * the customer's, `ownerEmail` the owner's), when that head is a party.
 */
function segmentParty(segment: string): { party: Party; word: string } | undefined {
  // A `user_agent` is a browser's name, not a party.
  const all = nameWords(segment);
  const words = all.filter(
    (w, i) => !(w === 'agent' && all[i - 1] === 'user') && !(w === 'user' && all[i + 1] === 'agent'),
  );
  const acting = words.find((w, i) => ACTING.has(w) || (BY_STEP.has(w) && words[i + 1] === 'by'));
  if (acting) return { party: 'business', word: acting };
  const related = relationWord(words);
  if (related) return { party: 'related', word: related };
  let end = words.length - 1;
  while (end > 0 && DETAIL_WORDS.has(words[end] as string)) end--;
  const head = words[end];
  if (head !== undefined && PERSON_PARTY.has(head)) return { party: 'person', word: head };
  if (head !== undefined && BUSINESS_PARTY.has(head)) return { party: 'business', word: head };
  return undefined;
}

/**
 * The nearest party a column's path names, or undefined: the column's own name first (a party
 * word in `assignedUserPhone` or `merchantName` counts like a parent object), then each object
 * above it; envelopes, detail objects (`address`, `billing`) and other things (`order`,
 * `settings`) name none and are passed over.
 */
export function partyOf(column: string): PartyReading | undefined {
  const parts = column.split('.');
  for (let i = parts.length - 1; i >= 0; i--) {
    const segment = parts[i] as string;
    const found = segmentParty(segment);
    if (found) return { ...found, segment, own: i === parts.length - 1 };
  }
  return undefined;
}

/** The party reading in the words the page shows. */
function partyWhy(p: PartyReading): string {
  const where = p.own ? `"${p.word}" in its name` : `inside ${p.segment}`;
  if (p.party === 'related')
    return `${where}: another person's, tied to the event's person, not the person's`;
  return p.party === 'business'
    ? `${where}: the business's party, not the person's`
    : `${where}: the person's`;
}

/**
 * A column's role with its party read first: a column whose nearest party is the business's is
 * the business's, whatever object holds it (roles.ts reads only the innermost object, and takes
 * an `address` for the person's); otherwise roles.ts decides.
 */
export function partyRole(
  column: string,
  typeOf: (objectPath: string) => unknown,
  direction?: Direction,
): RoleReading {
  const p = partyOf(column);
  if (p?.party === 'business') return { role: 'business', why: partyWhy(p) };
  if (p?.party === 'related') return { role: 'other', why: partyWhy(p) };
  return roleOf(column, typeOf, direction);
}

/** Whether any word of a column's path is a business party's (`merchant_business_entity_id`). */
export const namesBusinessParty = (column: string) =>
  column.split('.').some((p) => nameWords(p).some((w) => BUSINESS_PARTY.has(w)));

/** Why a column is a business party's and never the person's, or undefined. */
export function businessParty(column: string): string | undefined {
  const p = partyOf(column);
  return p?.party === 'business' ? partyWhy(p) : undefined;
}

/**
 * Why a column is another party's than the person's (the business's, or a person tied to them:
 * an emergency contact) and never the person's, or undefined.
 */
export function otherParty(column: string): string | undefined {
  const p = partyOf(column);
  return p && p.party !== 'person' ? partyWhy(p) : undefined;
}

/** Who acted on a record (`changer.primary_email`): a contact under one is never offered. */
export const ACTING_WORDS: ReadonlySet<string> = new Set([
  'actor',
  'changer',
  'author',
  'editor',
  'modifier',
  'initiator',
  'performer',
  'creator',
]);

/**
 * Whether a contact column no rule placed may be offered as the person's (unplaced-email.ts,
 * unplaced-phone.ts): not a business party's (`merchant.email`), no actor above it
 * (`changer.phone`), its leaf not named for the business's side (`To`), and no acting word in
 * its path (`author_email`).
 */
export function unplacedContact(column: string): boolean {
  return (
    otherParty(column) === undefined &&
    actorAbove(column) === undefined &&
    leafSide(column)?.side !== 'business' &&
    !column
      .split('.')
      .flatMap((p) => nameWords(p))
      .some((w) => ACTING_WORDS.has(w))
  );
}

/** Names of the columns that say what a payload is about: `event_type: person.created`. */
const KIND_COLUMNS = new Set([
  'type',
  'event',
  'eventtype',
  'topic',
  'action',
  'kind',
  'object',
  'objecttype',
]);

/**
 * Whether the payload says it is about a person: a kind column at its top (or under envelopes)
 * whose every value names a person's object (`person.created`, `subscriber.added`).
 */
export function aboutAPerson(fields: readonly InferredField[]): boolean {
  return fields.some((f) => {
    const parts = f.name.split('.');
    const above = parts.slice(0, -1).every((p) => WRAPPERS.has(nameWords(p).join('')));
    if (!above || !KIND_COLUMNS.has(nameWords(parts[parts.length - 1] ?? '').join(''))) return false;
    const values = f.examples.filter((v): v is string => typeof v === 'string');
    return values.length > 0 && values.every((v) => nameWords(v).some((w) => PERSON_PARTY.has(w)));
  });
}

/** A column naming the kind of whoever its object holds: `type`, `role`, `kind`, `user_type`, `senderRole`. */
const HOLDER_KIND = new Set(['type', 'role', 'kind']);
/**
 * The business's people a kind names (`agent`, `support_agent`, `admin`): not its organisations
 * (`company`, `business`), which also name a customer's kind (`customer.type: business`).
 */
const BUSINESS_PEOPLE = new Set([
  'agent',
  'admin',
  'administrator',
  'staff',
  'operator',
  'employee',
  'assignee',
  'moderator',
  'owner',
  'salesperson',
]);

/**
 * Why an object's details are the business's by what the object says it holds
 * (docs/creator-inference.md, "An object that says it holds an agent"): an object below the top
 * (`user`, `sender`, `author`) whose kind column (`user.type`, `sender.role`) holds, in every
 * row, one of the business's people alone or after one qualifier (`agent`, `admin`,
 * `support_agent`, `Staff`; never an organisation's kind, `company`, which a customer has too) holds one of the business's people, whatever its own name says (`user` names anyone).
 * Its id, e-mail and phone are then never the person's. Undefined where no object above the
 * column says so; an event's name (`agent.assigned`) is never read as a kind. A desk's user who
 * acted on a record (desk-actor.ts) is the business's the same way.
 */
export function heldByBusiness(fields: readonly InferredField[]): (column: string) => string | undefined {
  const kinds = new Map<string, string>();
  for (const f of fields) {
    const at = f.name.lastIndexOf('.');
    if (at < 0) continue;
    const words = nameWords(f.name.slice(at + 1));
    if (!HOLDER_KIND.has(words.at(-1) as string) || words.length > 2) continue;
    const values = f.examples.filter((v): v is string => typeof v === 'string' && !v.includes('.'));
    if (values.length === 0 || values.length !== f.examples.length) continue;
    const heads = values.map((v) => nameWords(v));
    if (heads.every((w) => w.length > 0 && w.length <= 2 && BUSINESS_PEOPLE.has(w.at(-1) as string)))
      kinds.set(f.name.slice(0, at), `${f.name}: ${values[0]}`);
  }
  const desk = deskActor(fields);
  const side = otherSide(fields);
  const account = accountUser(fields);
  const booked = bookedResource(fields);
  return (column) => {
    const parts = column.split('.');
    for (let i = parts.length - 1; i >= 1; i--) {
      const says = kinds.get(parts.slice(0, i).join('.'));
      if (says) return `its object says it holds the business's (${says}), not the person`;
    }
    return desk(column) ?? side(column) ?? account(column) ?? booked(column);
  };
}

/**
 * Words naming the side a money movement goes to (docs/creator-inference.md, "A record's object,
 * a list of records and the other side of a transfer"): a transfer's `destination`
 * (`destination_transaction.user`, `destination_account`). `payee` and `receiver` are the
 * business's words already (BUSINESS_PARTY); a `recipient` is the other side only where a payer
 * stands beside it (RECIPIENT). Not a `counterparty`, which Modern Treasury's truth names for the
 * person (the company's customer), nor a `beneficiary` (RELATED_PARTY's comment).
 */
const DESTINATION = new Set(['destination', 'dest']);
/**
 * Words a destination word may stand with in a segment: what goes there (a transaction, an
 * account, a wallet) or who holds it, or a detail. `destinationCalendar`, `payment_destination`
 * name no side of a transfer.
 */
const SIDE_THINGS = new Set([
  'transaction',
  'transfer',
  'account',
  'wallet',
  'party',
  'user',
  'customer',
  'holder',
  'details',
  'info',
  'email',
  'phone',
  'mobile',
  'name',
  'id',
]);
/** A message's or a payout's `recipient` is the person; beside a payer, it is the other side. */
const RECIPIENT = new Set(['recipient']);
/** Words of the side the money comes from: with one, a recipient is the other side. */
const PAYING_SIDE = new Set(['payer', 'debtor', 'remitter', 'sender']);
/** Words of money moving in a body's column names. */
const MONEY = new Set(['amount', 'total', 'fee', 'price', 'balance']);
/**
 * Words that say the money goes to the person (a payout, a withdrawal, a refund, a credit to their
 * account): the receiving side is then the person, and no side is refused.
 */
const TOWARD_PERSON = new Set([
  'payout',
  'payouts',
  'withdrawal',
  'withdrawals',
  'withdraw',
  'disbursement',
  'disbursements',
  'cashout',
  'refund',
  'refunds',
  'refunded',
  'credit',
  'credited',
]);
/** Last words of a column naming a body's or an object's kind, which may say the money's way. */
const WAY_KIND = new Set(['type', 'event', 'kind', 'object', 'action', 'topic', 'direction', 'subtype']);

/**
 * Why a column is the other side of a money movement, never the person (docs section above
 * DESTINATION): a column under or named with a destination word (`destination_transaction.user.email`,
 * `destination_email`), or with a `recipient` where a payer's column stands in the body too, in a
 * body where money moves (an amount, a total, a fee) and nothing says it goes to the person (a
 * payout, a withdrawal, a refund, a credit, in a kind's value or a column's name). Still personal
 * data, as any person's details are; undefined for any other column.
 */
export function otherSide(fields: readonly InferredField[]): (column: string) => string | undefined {
  const names = fields.flatMap((f) => f.name.split('.').flatMap((p) => nameWords(p)));
  const ways = fields.flatMap((f) =>
    WAY_KIND.has(nameWords(f.name.slice(f.name.lastIndexOf('.') + 1)).at(-1) ?? '')
      ? f.examples.filter((v): v is string => typeof v === 'string').flatMap((v) => nameWords(v))
      : [],
  );
  const moves = names.some((w) => MONEY.has(w));
  const toPerson = [...names, ...ways].find((w) => TOWARD_PERSON.has(w));
  if (!moves || toPerson) return () => undefined;
  const paying = names.some((w) => PAYING_SIDE.has(w));
  return (column) => {
    for (const segment of column.split('.')) {
      const words = nameWords(segment);
      const word = words.find((w) => DESTINATION.has(w) || (paying && RECIPIENT.has(w)));
      if (word && words.every((w) => w === word || SIDE_THINGS.has(w)))
        return `inside ${segment}: "${word}" names the other side of the money movement, not the person`;
    }
    return undefined;
  };
}

/** Targets that are a person's detail the page fills: identity, name and address. */
const PERSON_TARGETS =
  /^(user_id|user\.(external_id|email|phone|first_name|last_name|city|region|postal_code|country))$/;

/** The object a column sits in: its path without the leaf (`` for the payload's top). */
const objectOf = (column: string) => column.slice(0, Math.max(0, column.lastIndexOf('.')));

/**
 * The questions a detail with no party asks (the guess preselected, as every question): a column
 * taken as the person's detail whose path names no party, in an object (or the payload) where
 * another column is a business party's detail, the payload not saying it is about a person.
 * Two parties hold details there, and nothing says which this one is.
 */
export function unclaimedDetailQuestions(
  columns: readonly QuestionColumn[],
  asked: ReadonlySet<string>,
): Question[] {
  if (aboutAPerson(columns.map((c) => c.field))) return [];
  const out: Question[] = [];
  for (const c of columns) {
    const column = c.field.name;
    if (asked.has(column) || !PERSON_TARGETS.test(c.target) || partyOf(column) !== undefined) continue;
    const scope = objectOf(column);
    const rival = columns.find(
      (r) =>
        r !== c &&
        r.field.distinct > 0 &&
        (scope === '' || r.field.name.startsWith(`${scope}.`)) &&
        PERSON_TARGETS.test(r.alone) &&
        businessParty(r.field.name) !== undefined,
    );
    if (!rival) continue;
    out.push({
      target: c.target,
      ask: `Is ${column} the person's? Its name and place name no party, and ${rival.field.name} beside it is the business's.`,
      options: [
        {
          column,
          why: `names no party, beside ${rival.field.name} (${businessParty(rival.field.name)})`,
        },
      ],
    });
  }
  return out;
}
