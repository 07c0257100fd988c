/**
 * A software user's name beside another person's party is asked (issue #94,
 * docs/creator-inference.md#a-software-users-name-beside-another-party). Where the payload names
 * a `user` and another party that could be the person (a student, a customer, a contact:
 * rival-parties.ts), the user is as often whoever works in the vendor's software (the agency's
 * staff who updated the student, the agent who took the call) as the person. Its id, e-mail and
 * phone are already asked about; its first, last or full name and its address were still filled
 * as the person's. Now they are kept as event fields and asked with no answer preselected:
 * nothing but the word `user` says whose they are, and the other party makes it likelier that
 * they are not the person's. The other party's own names are left as they are. Pure, but for the
 * guesses and questions it rewrites.
 */
import type { Question } from './questions.ts';
import { partiesNamed, personParty, rivalsIn, SOFTWARE_USER } from './rival-parties.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';

/** The person's details the rule reads, each with the words its question uses. */
const DETAILS: Readonly<Record<string, string>> = {
  'user.first_name': 'first name',
  'user.last_name': 'last name',
  'user.name': 'name',
  'user.city': 'city',
  'user.region': 'region',
  'user.postal_code': 'postal code',
  'user.country': 'country',
};

/** The rule applied to the guesses and questions, in place (module comment). */
export function rivalNameRule(fields: readonly InferredField[], base: Guess[], questions: Question[]): void {
  const parties = partiesNamed(fields);
  const offered = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  for (const [i, g] of base.entries()) {
    const what = DETAILS[g.target];
    if (!what || offered.has(g.column)) continue;
    const own = personParty(g.column);
    if (own === undefined || !SOFTWARE_USER.has(own)) continue;
    const others = [...parties].filter((p) => !SOFTWARE_USER.has(p));
    if (!rivalsIn([own, ...others])) continue;
    const why = `the ${own}'s ${what}, beside a ${others.join(', a ')}: a user is as often whoever works in the vendor's software as the person`;
    base[i] = {
      column: g.column,
      target: 'event_data',
      field: dataFieldName(g.column),
      why: `${why}; kept as a field, asked above`,
    };
    questions.push({
      target: g.target,
      ask: `Is ${g.column} the person's ${what}? It is ${why}.`,
      options: [{ column: g.column, why }],
      noneGuessed: { why: `${why}; nothing says the ${own} is the event's person` },
    });
  }
}
