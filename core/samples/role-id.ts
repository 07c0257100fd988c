/**
 * An id named for the event's person beside an asked user id (issue #94,
 * docs/creator-inference.md#an-id-named-for-the-events-person). Where the page already asks
 * whether a column is the person's id (a `user_id` with nothing of the person's beside it, an
 * assignee's id), and the same object holds an id named for the role a person plays in the event
 * (`respondent_id`, `recipient_id`, `contact_id`, `customer_id`, `attendeeId`), that id is
 * preselected in the question, the asked column offered after it. A `user` is whoever uses the
 * vendor's product (often the business's account, a survey's owner, an agent), while the role's
 * word names the event's person. Nothing is filled without asking: the question only changes which
 * answer it preselects. A `client_id` is an application's as often as a person's: not a role.
 *
 * Where nothing at all is taken or asked as the person's id, the role-named ids (`patient_id`,
 * `identifiers.patientId`) are offered in a question of their own with no answer preselected:
 * the role names the event's person, but nothing else says the id is theirs and not a record's
 * kept for them. Never one a business party, an actor or a business-held object holds. Pure.
 */
import { nameWords } from './names.ts';
import { heldByBusiness, partyOf } from './party.ts';
import type { Question } from './questions.ts';
import { type RuleGuess as Guess, PERSON_ID, personIdAnswered } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';
import { actorAbove } from './two-evidence.ts';

/** The roles a person plays in the event, as words of a name. */
const ROLES =
  'respondent|recipient|attendee|invitee|participant|subscriber|buyer|payer|guest|patron|student|signer|donor|visitor|customer|contact|member|lead|patient|person|prospect|applicant|shopper|learner';
/** Leaf names (words joined) of an id named for the person's role in the event, either way round. */
const ROLE_ID = new RegExp(`^(${ROLES})(?:id|uuid)$|^id(${ROLES})$`);
const ROLE_WORD = new RegExp(`^(${ROLES})$`);
const ID_WORD = /^(id|uuid)$/;
/** Prefixes that make a role's id another record's (`previousContactId`, `parent_customer_id`). */
const OTHER_RECORD = new Set(
  'initial previous prev parent related original next last first other linked merged old new duplicate referring referred assigned owner created updated deleted'.split(
    ' ',
  ),
);

/** Names (words joined) of an object named for the person's role (`subscriber`, `customers`). */
const ROLE_OBJECT = new RegExp(`^(${ROLES})s?$`);

const parentOf = (column: string) => (column.includes('.') ? column.slice(0, column.lastIndexOf('.')) : '');
const leafOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);

/** The role a column's name gives the event's person (`respondent`), or undefined. */
export function personRoleOfId(column: string): string | undefined {
  const words = nameWords(leafOf(column));
  const m = ROLE_ID.exec(words.join(''));
  if (m) return m[1] ?? m[2];
  // One word of a vendor's prefix before the role's (`mj_contact_id`), none naming another record.
  const [prefix, role, id] = words;
  if (words.length !== 3 || !prefix || OTHER_RECORD.has(prefix) || !id || !ID_WORD.test(id)) return undefined;
  return ROLE_WORD.exec(role ?? '')?.[1];
}

/** The role the object holding a column is named for (`subscriber.user_id` → `subscriber`), or undefined. */
function objectRoleOf(column: string): string | undefined {
  const parent = parentOf(column);
  return ROLE_OBJECT.exec(nameWords(parent.slice(parent.lastIndexOf('.') + 1)).join(''))?.[1];
}

/**
 * The rule applied in place: each question about the person's id that preselects a column (its
 * first option) gets the role-named ids beside that column, not yet offered by any question and
 * holding values, preselected before it; the guesses follow the new preselection. Where none is
 * beside it and its own object names no role (`broadcaster.user_id`), a column of the same name in
 * an object named for a role (`subscriber.user_id`) is preselected the same way.
 */
export function roleIdBesideAsked(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  const offered = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  questions.forEach((q, qi) => {
    const first = q.options[0]?.column;
    if (!first || q.noneGuessed || !PERSON_ID.has(q.target)) return;
    const at = base.findIndex((g) => g.column === first && g.target === q.target);
    const was = base[at];
    if (!was) return;
    const open = (f: InferredField) => f.distinct > 0 && f.name !== first && !offered.has(f.name);
    const beside = fields.filter(
      (f) => open(f) && parentOf(f.name) === parentOf(first) && personRoleOfId(f.name) !== undefined,
    );
    const roleOf = (column: string) => personRoleOfId(column) ?? objectRoleOf(column);
    const roles =
      beside.length > 0 || objectRoleOf(first) !== undefined
        ? beside
        : fields.filter(
            (f) => open(f) && leafOf(f.name) === leafOf(first) && objectRoleOf(f.name) !== undefined,
          );
    const chosen = roles[0];
    const to = base.findIndex((g) => g.column === chosen?.name);
    if (!chosen || base[to]?.target !== 'event_data') return;
    const role = roleOf(chosen.name) as string;
    const named = personRoleOfId(chosen.name) ? 'named for' : 'in an object named for';
    const why = `${named} the event's ${role}, beside ${first}, which names no role in the event`;
    base[to] = { column: chosen.name, target: q.target, why: `${why}: asked above, preselected` };
    base[at] = {
      column: first,
      target: 'event_data',
      field: dataFieldName(first),
      why: `named as the person's id, but ${chosen.name} beside it names the event's ${role}: asked above`,
    };
    for (const f of roles) offered.add(f.name);
    questions[qi] = {
      ...q,
      ask: `Which is the person's id? ${chosen.name} is ${named} the event's ${role}; ${first} names a user, who may be the business's account.`,
      options: [
        ...roles.map((f) => ({ column: f.name, why: `named for the event's ${roleOf(f.name)}` })),
        ...q.options,
      ],
    };
  });
}

/**
 * The question of role-named ids where nothing is taken or asked as the person's id (module
 * comment), or undefined: ids holding one value per row, kept as fields, no other party's.
 */
export function loneRoleIdQuestion(
  fields: readonly InferredField[],
  base: readonly Guess[],
  questions: readonly Question[],
): Question | undefined {
  if (personIdAnswered(base, questions)) return undefined;
  const offered = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const held = heldByBusiness(fields);
  const roles = fields.filter(
    (f) =>
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      personRoleOfId(f.name) !== undefined &&
      !offered.has(f.name) &&
      base.some((g) => g.column === f.name && g.target === 'event_data') &&
      partyOf(f.name)?.party !== 'business' &&
      (actorAbove(f.name) ?? held(f.name)) === undefined,
  );
  const first = roles[0];
  if (!first) return undefined;
  const role = personRoleOfId(first.name) as string;
  return {
    target: 'user_id',
    ask: `Is ${roles.length === 1 ? `${first.name} the person's id` : 'one of these the person’s id'}? ${roles.length === 1 ? `It is named for the event's ${role}` : 'They are named for a role a person plays in the event'}, and no other column is taken as the person's id: nothing else says whose it is.`,
    options: roles
      .slice(0, 3)
      .map((f) => ({ column: f.name, why: `named for the event's ${personRoleOfId(f.name)}` })),
    noneGuessed: { why: "only the name says it is the person's id" },
  };
}

/** Both rules, in place: a role-named id preselected beside an asked one, else offered alone. */
export function roleIdRules(fields: readonly InferredField[], base: Guess[], questions: Question[]): void {
  roleIdBesideAsked(fields, base, questions);
  const lone = loneRoleIdQuestion(fields, base, questions);
  if (lone) questions.push(lone);
}
