/**
 * An object that says it holds a person (issue #94, docs/creator-inference.md, "An object that
 * says it holds a person"): the mirror of an object that says it holds an agent (party.ts
 * `heldByBusiness`). Activity streams and chat payloads name their objects by role (`actor`,
 * `object`, `target`) and say in a kind column what each holds (`actor.type: Person`,
 * `sender.kind: customer`). Where nothing is taken or asked as the person's id, the plain id of an
 * object whose kind column (`type`, `role`, `kind`) holds, in every row, a person's word alone
 * (`Person`, `customer`; not `workspace-member`, a qualified kind the business's own may be) is
 * offered as the person's id with no
 * answer preselected: the kind says a person is there, not that it is the event's person. Never a
 * `user` (whoever uses the product, the business's account too), nor an object a business party
 * or an agent's kind holds. Pure.
 */
import { nameWords } from './names.ts';
import { heldByBusiness, otherParty, personWord } from './party.ts';
import type { Question } from './questions.ts';
import { type RuleGuess as Guess, PLAIN_ID, personIdAnswered } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Last words of a column naming the kind of whoever its object holds. */
const HOLDER_KIND = new Set(['type', 'role', 'kind']);

/** The objects whose kind column says they hold a person, each with the kind it says. */
function personObjects(fields: readonly InferredField[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fields) {
    const at = f.name.lastIndexOf('.');
    if (at < 0 || f.type !== 'string' || f.examples.length === 0) continue;
    const words = nameWords(f.name.slice(at + 1));
    if (words.length !== 1 || !HOLDER_KIND.has(words[0] as string)) continue;
    const heads = f.examples.map((v) => (typeof v === 'string' && !v.includes('.') ? nameWords(v) : []));
    const person = heads.every((w) => {
      const last = w.at(-1) ?? '';
      return w.length === 1 && last !== 'user' && last !== 'users' && personWord(last);
    });
    if (person) out.set(f.name.slice(0, at), String(f.examples[0]));
  }
  return out;
}

/** The question (module comment), or undefined where it does not apply. */
export function personKindIdQuestion(
  base: readonly Guess[],
  fields: readonly InferredField[],
  questions: readonly Question[],
): Question | undefined {
  if (personIdAnswered(base, questions)) return undefined;
  const objects = personObjects(fields);
  if (objects.size === 0) return undefined;
  const held = heldByBusiness(fields);
  const offered = new Set(questions.flatMap((q) => q.options.map((o) => o.column)));
  const ids = fields.filter((f) => {
    const at = f.name.lastIndexOf('.');
    return (
      at > 0 &&
      objects.has(f.name.slice(0, at)) &&
      PLAIN_ID.test(f.name.slice(at + 1)) &&
      f.distinct > 0 &&
      (f.type === 'string' || f.type === 'integer') &&
      !offered.has(f.name) &&
      base.some((g) => g.column === f.name && g.target === 'event_data') &&
      otherParty(f.name) === undefined &&
      held(f.name) === undefined
    );
  });
  const first = ids[0];
  if (!first) return undefined;
  const holder = (f: InferredField) => f.name.slice(0, f.name.lastIndexOf('.'));
  return {
    target: 'user_id',
    ask: `Is ${ids.length === 1 ? `${first.name} the person's id` : 'one of these the person’s id'}? ${ids.length === 1 ? `Its object says it holds a person (${objects.get(holder(first))})` : 'Their objects say they hold a person'}, but not that this is the event's person.`,
    options: ids.slice(0, 3).map((f) => ({
      column: f.name,
      why: `the id of ${holder(f)}, which says it holds a ${objects.get(holder(f))}`,
    })),
    noneGuessed: { why: "only the object's kind says a person is there, not that it is the event's person" },
  };
}
