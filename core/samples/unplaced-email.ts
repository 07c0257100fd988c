/**
 * An address no rule placed (docs/creator-inference.md, "An address no rule placed"). Where no
 * column is taken or asked about as the person's e-mail, a column of e-mail addresses that the
 * roles kept as a field because of where it sits (a support ticket's `ticket.email`, a form's
 * `fields.email`, a conversation's `requester.email`, a message's `sender_email`) is often the
 * person's. Its place says nothing sure either way, so the page asks, never fills it: the one
 * such column preselected, several, or one of whoever sent or asked (`sender_email`,
 * `mail.source`: the person in a chat, the business in a mail), offered with no answer
 * preselected. Never a business party's address (`merchant.email`, `assignee.email`), one under
 * an actor (`changer`, `author`), one of an object that says it holds an agent (`user.type:
 * agent`), or one named for the business's side (`To`). Where there is none, lists of addresses
 * are asked about instead (email-list.ts). Pure, but for the guess it rewrites.
 */
import { askColumns } from './ask-columns.ts';
import { addressLists, emailListQuestion, listOptions } from './email-list.ts';
import { nameWords } from './names.ts';
import { heldByBusiness, unplacedContact } from './party.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

const EMAIL = 'user.email';
/**
 * Who sent or asked (`sender_email`, `mail.source`, `requester_email_address`, `email.from`): the
 * person in a chat, the business in a mail or a signature request. Offered, never preselected.
 */
export const SENDING = new Set(['sender', 'from', 'source', 'requester', 'requestor', 'sent', 'reply']);

const words = (column: string) => column.split('.').flatMap((p) => nameWords(p));

/**
 * With no column taken or asked about as the person's e-mail, the question of whether an address
 * kept as a field for its place is the person's (module comment), undefined where there is none.
 * The one preselected, when there is one, is rewritten in place as the person's e-mail.
 */
export function unplacedEmailQuestion(
  base: RuleGuess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === EMAIL)) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === EMAIL)) return undefined;
  const kept = new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
  const held = heldByBusiness(fields);
  const emails = fields.filter(
    (f) =>
      f.format === 'email' &&
      f.distinct > 0 &&
      kept.has(f.name) &&
      unplacedContact(f.name) &&
      held(f.name) === undefined,
  );
  // No single address: a list of them may hold the person's (email-list.ts).
  if (emails.length === 0) return emailListQuestion(base, fields);
  const options = [
    ...emails.slice(0, 3).map((f) => ({
      column: f.name,
      why: `its values are e-mail addresses, but where it sits (${f.name.slice(0, Math.max(0, f.name.lastIndexOf('.'))) || 'the top'}) does not say whose`,
    })),
    // Lists of addresses beside them are offered after them, never preselected (email-list.ts).
    ...listOptions(addressLists(base, fields)),
  ];
  const one = emails.length === 1 && !words(emails[0]?.name ?? '').some((w) => SENDING.has(w));
  return askColumns(base, EMAIL, options, one, {
    ask: one
      ? `Is ${emails[0]?.name} the person's e-mail? Its values are addresses and no other address is the person's, but where it sits does not say whose.`
      : "Is one of these the person's e-mail? Their values are addresses, but nothing says whose: a sender's may be the business's.",
    taken:
      "the one address that is not the business's, kept as a field for where it sits: the person's, asked above, preselected",
    none: 'nothing says which address, if any, is the person’s',
  });
}
