/**
 * A list of addresses (issue #94, docs/creator-inference.md#a-list-of-addresses). A mail's
 * `to: ["ana@example.com"]`, a delivery's `recipients`, a meeting's `guests`, a lead's `email`
 * written as a list, or a list of objects that each hold one (`emails: [{ "email": "…" }]`): the
 * reading step keeps such values as JSON, so no rule read them as the person's e-mail. The
 * translator reads a list's first item (`{ path: "0" }`, `{ path: "0.email" }`), so such a column
 * can fill the person's e-mail with its first address (draft.ts). Where no column is taken or asked as the person's e-mail, the lists are offered in a
 * question: the one list preselected when every list in the sample holds one address and its name
 * says neither who sent it nor a copy (`from`, `cc`, `bcc`), else each offered with no answer
 * preselected; beside single addresses that no rule placed, the lists are offered after them
 * (unplaced-email.ts). Never a business party's list, nor one an object says is the business's
 * (party.ts `unplacedContact`, `heldByBusiness`). Pure,
 * but for the guess it rewrites.
 */
import { askColumns } from './ask-columns.ts';
import { nameWords } from './names.ts';
import { heldByBusiness, unplacedContact } from './party.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { VOTE, valueVotes } from './values.ts';

const EMAIL = 'user.email';
/** Words of who sent it, or of a copy's addresses: offered, never preselected. */
const NOT_ALONE = new Set(['sender', 'from', 'source', 'reply', 'cc', 'bcc']);

const isAddress = (v: unknown): boolean => {
  const votes: string[] = [];
  valueVotes(v, votes);
  return typeof v === 'string' && votes.includes(VOTE.email);
};

/** Words of a name that holds addresses. */
const MAIL = new Set(['email', 'emails', 'mail', 'mails']);

/** The key that holds an address in every one of the objects, or undefined. */
function addressKey(items: readonly unknown[]): string | undefined {
  const [first] = items;
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return undefined;
  return Object.keys(first).find((k) =>
    items.every(
      (o) =>
        o !== null &&
        typeof o === 'object' &&
        !Array.isArray(o) &&
        isAddress((o as Record<string, unknown>)[k]),
    ),
  );
}

/**
 * Where the first address sits in each value of the column, as the translator's `path` reads it:
 * `0` where every value is a list of addresses, `0.<key>` where every value is a list of objects
 * that hold an address under one key (`[{ "email": "…", "verified": true }]`) and the column's
 * name says it holds e-mails; undefined where a value is anything else, or an empty list.
 */
export function addressPath(f: InferredField): string | undefined {
  if (f.type !== 'json' || f.examples.length === 0) return undefined;
  const lists = f.examples.filter((v): v is unknown[] => Array.isArray(v) && v.length > 0);
  if (lists.length !== f.examples.length) return undefined;
  if (lists.every((v) => v.every(isAddress))) return '0';
  // A list of objects only under a name that says it holds addresses (`emails`, `visitor.email`):
  // attendees, signers or recipients hold a person's other details too, and are read elsewhere.
  const leaf = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1));
  if (!leaf.some((w) => MAIL.has(w))) return undefined;
  const key = addressKey(lists.flat());
  return key === undefined ? undefined : `0.${key}`;
}

/** Whether every value of the column in the sample is a list of e-mail addresses (`addressPath`). */
export function isAddressList(f: InferredField): boolean {
  return addressPath(f) !== undefined;
}

/**
 * The lists of addresses kept as fields, none a business party's (`merchant.emails`), an actor's or
 * in an object that says it holds the business's (party.ts, as unplaced-email.ts reads addresses).
 */
export function addressLists(base: readonly RuleGuess[], fields: readonly InferredField[]): InferredField[] {
  const kept = new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
  const held = heldByBusiness(fields);
  return fields.filter(
    (f) => kept.has(f.name) && isAddressList(f) && unplacedContact(f.name) && held(f.name) === undefined,
  );
}

/** A question's options for the lists, three at most. */
export function listOptions(lists: readonly InferredField[]): { column: string; why: string }[] {
  return lists.slice(0, 3).map((f) => ({
    column: f.name,
    why: 'its values are lists of e-mail addresses: its first address would be taken',
  }));
}

/**
 * With no column taken or asked as the person's e-mail, the question over the lists of addresses
 * (module comment), or undefined where there is none.
 */
export function emailListQuestion(base: RuleGuess[], fields: readonly InferredField[]): Question | undefined {
  if (base.some((g) => g.target === EMAIL)) return undefined;
  const lists = addressLists(base, fields);
  const [only] = lists;
  if (!only) return undefined;
  const options = listOptions(lists);
  const words = only.name.split('.').flatMap((p) => nameWords(p));
  const one =
    lists.length === 1 &&
    only.examples.every((v) => Array.isArray(v) && v.length === 1) &&
    !words.some((w) => NOT_ALONE.has(w));
  return askColumns(base, EMAIL, options, one, {
    ask: one
      ? `Is the address in ${only.name} the person's e-mail? It is a list of one address and no other address is the person's.`
      : "Is the first address of one of these lists the person's e-mail? Their values are lists of addresses, but nothing says whose.",
    taken:
      "a list of one e-mail address, and no other address is the person's: its address, asked above, preselected",
    none: 'nothing says which list, if any, holds the person’s address, nor which of its addresses',
  });
}
