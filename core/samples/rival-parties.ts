/**
 * Rival candidates for the person are a question (docs/creator-inference.md#rival-parties,
 * issue #94). The person's id, e-mail and phone are filled without asking only when the payload
 * names one party that could be the person. Where columns at any depth name a `user` and another
 * person's party (`user_id` and `user_email` beside `contact_id`, `customer.email` beside
 * `user.id`), and no word of the business's side or of an actor has already ruled one of them out
 * (party.ts, actor.ts, two-evidence.ts), the payload alone does not say which is the event's
 * person: vendors call whoever works in their software a user (the agent who took the call, the
 * owner of a deal) as often as the person. Every such detail becomes a question, the likelier
 * party preselected: the customer, contact or member over the user; a detail only the user has
 * (the user's e-mail beside the contact's id) then preselects no, so the page's answers never
 * disagree about who the person is. A list of ids (`user_ids`)
 * names several people, none of them the event's one person. Pure.
 */
import { actorOf } from './actor.ts';
import { nameWords } from './names.ts';
import { heldByBusiness, partyOf } from './party.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { dataFieldName } from './suggest.ts';
import { actorAbove } from './two-evidence.ts';

/** The details a rival party makes a question of, by the kind of detail each target is. */
const KIND_OF: Readonly<Record<string, Kind>> = {
  user_id: 'id',
  'user.external_id': 'id',
  'user.email': 'email',
  'user.phone': 'phone',
};
type Kind = 'id' | 'email' | 'phone';
const KIND_WORDS: Readonly<Record<string, string>> = {
  id: 'id',
  email: 'e-mail address',
  phone: 'phone number',
};
const ID_LEAVES = new Set(['id', 'uuid', 'guid']);
/** Person words that also name whoever uses the vendor's software: the less likely person. */
export const SOFTWARE_USER: ReadonlySet<string> = new Set(['user', 'users']);

/**
 * The person's party a column belongs to: the outermost person word on its path
 * (`member.discord_user_id` is the member's), or undefined when its path names none, or names the
 * business's side or an actor (those other rules decide).
 */
export function personParty(column: string): string | undefined {
  if (partyOf(column)?.party !== 'person' || actorAbove(column) || actorOf(column)) return undefined;
  const parts = column.split('.');
  for (let i = 1; i <= parts.length; i++) {
    const p = partyOf(parts.slice(0, i).join('.'));
    if (p?.party === 'person') return p.word;
    if (p) return undefined;
  }
  return undefined;
}

/** The kind of the person's detail a column holds, by its values or its name, or undefined. */
function kindOf(f: InferredField): Kind | undefined {
  if (f.format === 'email') return 'email';
  if (f.format === 'phone') return 'phone';
  const words = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1));
  if (words.includes('email')) return 'email';
  return ID_LEAVES.has(words.at(-1) as string) ? 'id' : undefined;
}

/** A column that may be the person's detail: its kind, and the person's party its path names. */
interface Candidate {
  readonly column: string;
  readonly kind: Kind;
  readonly party: string;
}

/** Every column of the payload that holds a detail of a person's party, always-empty ones left out. */
function candidatesOf(fields: readonly InferredField[]): Candidate[] {
  // A party its object or the body says is the business's, or the other side of a transfer, is
  // no rival for the person (party.ts `heldByBusiness`).
  const held = heldByBusiness(fields);
  return fields.flatMap((f) => {
    const party = f.distinct > 0 && !held(f.name) ? personParty(f.name) : undefined;
    const kind = party ? kindOf(f) : undefined;
    return party && kind ? [{ column: f.name, kind, party }] : [];
  });
}

/** The person's parties whose id, e-mail or phone the payload holds (`user`, `student`). */
export const partiesNamed = (fields: readonly InferredField[]): Set<string> =>
  new Set(candidatesOf(fields).map((c) => c.party));

/**
 * Whether parties rival for the person: a software's user beside another person's party (a
 * contact, a customer, a member). Two parties of other words (a customer and the contact of an
 * order, a payer beside a customer) are most often one person named twice, and are left as
 * they are (docs/creator-inference.md#rival-parties gives the broader rule's figures).
 */
export const rivalsIn = (parties: readonly string[]) =>
  parties.some((p) => SOFTWARE_USER.has(p)) && parties.some((p) => !SOFTWARE_USER.has(p));

/** Whether party `a` is less likely than `b` to be the event's person: the software's user, beside someone else. */
const likelier = (a: string, b: string) => SOFTWARE_USER.has(a) && !SOFTWARE_USER.has(b);

/**
 * The questions of rival parties (module comment), the guesses rewritten in place so that each
 * question's first option is the one taken: for each of the person's id, e-mail and phone filled
 * from a column not yet asked about, when another party that could be the person names a detail
 * in the payload. Its own kind of detail from the other parties is offered beside it; the likelier
 * party's column is preselected.
 */
export function rivalPartyQuestions(
  fields: readonly InferredField[],
  base: Guess[],
  asked: ReadonlySet<string>,
): Question[] {
  const candidates = candidatesOf(fields);
  const parties = new Set(candidates.map((c) => c.party));
  const out: Question[] = [];
  const done = new Set(asked);
  const lone: Lone[] = [];
  for (const [i, g] of base.entries()) {
    const kind = KIND_OF[g.target];
    if (!kind || done.has(g.column)) continue;
    const own = personParty(g.column);
    const others = [...parties].filter((p) => p !== own);
    if (!rivalsIn(own === undefined ? others : [own, ...others])) continue;
    const rivals = candidates.filter(
      (c) => c.kind === kind && c.party !== own && c.column !== g.column && !done.has(c.column),
    );
    const best = rivals.find((r) => own !== undefined && likelier(own, r.party));
    const named = others.map((p) => `a ${p} (${candidates.find((c) => c.party === p)?.column})`).join(', ');
    const ownWhy = own ? `the ${own}'s ${KIND_WORDS[kind]}` : 'its name and place name no party';
    const options = [
      { column: g.column, why: `${ownWhy}; the payload also names ${named}` },
      ...rivals.map((r) => ({
        column: r.column,
        why:
          r === best
            ? `the ${r.party}'s ${KIND_WORDS[kind]}: likelier the person's than the ${own}'s, a user being as often whoever works in the vendor's software`
            : `the ${r.party}'s ${KIND_WORDS[kind]}`,
      })),
    ];
    if (best) {
      const j = base.findIndex((x) => x.column === best.column);
      const was = base[j];
      if (was)
        base[j] = {
          column: was.column,
          target: g.target,
          why: `the ${best.party}'s ${KIND_WORDS[kind]}, over the ${own}'s: asked above, preselected`,
        };
      base[i] = {
        column: g.column,
        target: 'event_data',
        field: dataFieldName(g.column),
        why: `${ownWhy}, beside ${named}: kept as a field, asked above`,
      };
      const first = options.findIndex((o) => o.column === best.column);
      options.unshift(...options.splice(first, 1));
    }
    for (const o of options) done.add(o.column);
    if (own !== undefined && rivals.length === 0) lone.push({ index: i, at: out.length, own, kind });
    out.push({
      target: g.target,
      ask: `Whose ${KIND_WORDS[kind]} is the person's? The payload names more than one party that could be the person: ${[own, ...others].filter(Boolean).join(', ')}.`,
      options,
    });
  }
  return preferLikelier(out, lone, base, candidates);
}

/** A question with one party's detail alone: the guess it asks about, and that party. */
interface Lone {
  /** The guess's index in `base`. */
  readonly index: number;
  /** The question's index among the rival questions. */
  readonly at: number;
  readonly own: string;
  readonly kind: Kind;
}

/**
 * The lone details of a less likely party, once a likelier party's detail is preselected as the
 * person's (the user's e-mail beside the contact whose id the id question preselects): taking
 * the user's e-mail as the person's would say the user is the person after all, so such a
 * question preselects its no answer, the column kept as an event field and still offered.
 */
function preferLikelier(
  questions: Question[],
  lone: readonly Lone[],
  base: Guess[],
  candidates: readonly Candidate[],
): Question[] {
  const preferred = candidates.filter((c) =>
    base.some((g) => g.column === c.column && KIND_OF[g.target] !== undefined),
  );
  for (const l of lone) {
    const over = preferred.find((c) => likelier(l.own, c.party));
    const g = base[l.index];
    const q = questions[l.at];
    if (!over || !g || !q) continue;
    // Said only when true: the other party's detail of this kind may sit in another question.
    const none = candidates.some((c) => c.kind === l.kind && c.party === over.party)
      ? ''
      : `, and the payload holds no ${KIND_WORDS[l.kind]} of the ${over.party}'s`;
    const why = `the ${over.party} (${over.column}) is preselected as the person${none}`;
    base[l.index] = {
      column: g.column,
      target: 'event_data',
      field: dataFieldName(g.column),
      why: `the ${l.own}'s ${KIND_WORDS[l.kind]}, while ${why}: kept as a field, asked above`,
    };
    questions[l.at] = { ...q, noneGuessed: { why: `not the person's: ${why}` } };
  }
  return questions;
}
