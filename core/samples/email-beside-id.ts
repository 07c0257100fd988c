/**
 * The e-mail kept beside the person's id (issue #94, docs/creator-inference.md, "The e-mail beside
 * the person's id"). A support conversation names several people, each in an object of their own
 * (`requester`, `assignee`, `author`), and a channel's address beside them (`contact_point`): the
 * page asked whose e-mail was the person's between the channel's and the agent's, and never
 * offered the requester's, though it asked the requester's id as the person's. Where the person's
 * id is taken or preselected in an object (`conversation.requester.id`) and the page asks about
 * the person's e-mail, an e-mail column in that same object is preselected in that question, the
 * columns it offered kept after it: a person's details sit together, and the object the page
 * already reads as the person's is the best evidence of whose address is theirs. Nothing is filled
 * without asking.
 *
 * The same holds for a name: where the e-mail question asks about one address whose name says
 * nothing of whose it is, or names a sender (`data.sender`, known as an e-mail by its values
 * alone), and an address beside it is named for a role a person plays (`data.recipient`,
 * `customer`), that one is preselected, the first kept after it. Pure, but for the guesses and
 * the question it rewrites.
 */
import { nameWords } from './names.ts';
import { otherParty, personWord } from './party.ts';
import type { Question } from './questions.ts';
import { type RuleGuess as Guess, PERSON_ID } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

const EMAIL = 'user.email';
const parentOf = (column: string) => (column.includes('.') ? column.slice(0, column.lastIndexOf('.')) : '');

/** The person's id column as the page reads it: filled, or preselected in a question. */
function personIdColumn(base: readonly Guess[], questions: readonly Question[]): string | undefined {
  const asked = questions.find((q) => PERSON_ID.has(q.field ?? q.target) && !q.noneGuessed);
  return asked?.options[0]?.column ?? base.find((g) => PERSON_ID.has(g.target))?.column;
}

/** Whether a column's leaf is named for a role a person plays (`recipient`, `customer`), not a user's. */
const roleNamed = (column: string) =>
  nameWords(column.slice(column.lastIndexOf('.') + 1)).some((w) => w !== 'user' && personWord(w));

/** An address to preselect: beside the person's id, or else named for a person's role beside the asked one. */
function besideOf(
  fields: readonly InferredField[],
  base: readonly Guess[],
  questions: readonly Question[],
  q: Question,
): { readonly email: InferredField; readonly because: string } | undefined {
  // Never an address named for the business's side (`lead.teamEmail`), though it sits beside the id.
  const address = (f: InferredField) =>
    f.format === 'email' && f.distinct > 0 && f.type === 'string' && otherParty(f.name) === undefined;
  const id = personIdColumn(base, questions);
  const holder = id === undefined ? '' : parentOf(id);
  const email = holder === '' ? undefined : fields.find((f) => parentOf(f.name) === holder && address(f));
  if (email) return { email, because: `in ${holder}, beside the person's id (${id})` };
  const first = q.options[0]?.column;
  if (q.noneGuessed || q.options.length !== 1 || first === undefined || roleNamed(first)) return undefined;
  const named = fields.find(
    (f) => f.name !== first && parentOf(f.name) === parentOf(first) && address(f) && roleNamed(f.name),
  );
  return named ? { email: named, because: `named for a role a person plays, beside ${first}` } : undefined;
}

/** The rule applied in place (module comment). */
export function emailBesideIdRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  const qi = questions.findIndex((q) => (q.field ?? q.target) === EMAIL);
  const q = questions[qi];
  if (!q) return;
  const found = besideOf(fields, base, questions, q);
  if (!found || q.options[0]?.column === found.email.name) return;
  const { email, because } = found;
  const to = base.findIndex((g) => g.column === email.name);
  if (base[to]?.target !== 'event_data') return;
  const was = q.noneGuessed ? undefined : q.options[0]?.column;
  const at = base.findIndex((g) => g.column === was && g.target === EMAIL);
  base[to] = {
    column: email.name,
    target: EMAIL,
    why: `an address ${because}: asked above, preselected`,
  };
  const old = base[at];
  if (old)
    base[at] = {
      column: old.column,
      target: 'event_data',
      field: dataFieldName(old.column),
      why: `an address, but ${email.name} is ${because}: asked above`,
    };
  const { noneGuessed: _, ...rest } = q;
  questions[qi] = {
    ...rest,
    ask: `Whose e-mail address is the person's? ${email.name} is ${because}; the others hold addresses too.`,
    options: [
      { column: email.name, why: `an address ${because}` },
      ...q.options.filter((o) => o.column !== email.name),
    ],
  };
}
