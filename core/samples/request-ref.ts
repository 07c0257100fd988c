/**
 * A caller's request reference is not the event's id (#94, docs/creator-inference.md#the-events-own-id).
 * An `idempotency_key`, `request_id` or `reference_id` is the key the vendor's caller gave the
 * request that started the record (Stripe's `request.idempotency_key`, an identity check's
 * top-level `idempotency_key`): every later event about that record may carry the same one, and
 * some carry none, so taking it as the event's id would fold different events into one. Wherever
 * it sits it is never filled as the event's id without asking; when one at the top of the payload
 * was named like the event's id and no other column is, the page asks which is, a better
 * candidate preselected (the payload's own plain id, the id of the record the event's type
 * names, or the id of the one object the payload is about), the reference only when there is
 * none. Pure.
 */
import { atEnvelopeTop, everyRowOwn, idShaped } from './delivery.ts';
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Leaf names (words joined by a space) of a caller's reference for a request. */
const REFERENCE =
  /^(client |caller |external )?(idempotency|idempotence|request|reference|correlation) (key|id|uuid|token|ref|reference)$|^(client |caller )?reference$/;

const leafWords = (column: string) => nameWords(column.slice(column.lastIndexOf('.') + 1));

/** Why a column is a caller's request reference and not the event's id, or undefined. */
export function requestReference(column: string): string | undefined {
  const words = leafWords(column).join(' ');
  return REFERENCE.test(words)
    ? `"${column}" is the caller's reference for the request that started the record, not the event's id`
    : undefined;
}

/** Leaves of the column that says which event a payload is. */
const TYPE_LEAVES = new Set(['type', 'event', 'eventtype', 'eventname', 'topic', 'trigger']);

/**
 * A better candidate for the event's id than a request reference: the payload's own plain id
 * (`id`, `uuid`) at the envelope's top, or there the id of the record the event's type names
 * (`Verification.updated` beside `verification_id`), or else the plain id of an object one level
 * down (`data.id`), each row's own and shaped as an id.
 */
function betterCandidate(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: readonly Guess[],
): { index: number; why: string } | undefined {
  const usable = (g: Guess) =>
    g.target === 'event_data' &&
    atEnvelopeTop(g.column) &&
    requestReference(g.column) === undefined &&
    everyRowOwn(rows, g.column) &&
    idShaped(rows, g.column);
  const plain = base.findIndex((g) => usable(g) && /^(id|uuid)$/.test(leafWords(g.column).join(' ')));
  if (plain >= 0) return { index: plain, why: "the payload's own id: the id of what it is about" };
  const records = fields
    .filter((f) => f.name.split('.').length <= 2 && TYPE_LEAVES.has(leafWords(f.name).join('')))
    .flatMap((f) => f.examples.filter((v): v is string => typeof v === 'string'))
    .map((v) => nameWords(v)[0]);
  const named = base.findIndex((g) => {
    const words = leafWords(g.column);
    return (
      usable(g) && words.length === 2 && /^(id|uuid)$/.test(words[1] as string) && records.includes(words[0])
    );
  });
  if (named >= 0)
    return {
      index: named,
      why: `the id of the ${leafWords(base[named]?.column ?? '')[0]} the event's type names`,
    };
  // The id of the one object the payload is about, one level down (`data.id`, `payment.id`).
  const nested = base.findIndex(
    (g) =>
      g.target === 'event_data' &&
      g.column.split('.').length === 2 &&
      /^(id|uuid)$/.test(leafWords(g.column).join(' ')) &&
      everyRowOwn(rows, g.column) &&
      idShaped(rows, g.column),
  );
  return nested >= 0
    ? {
        index: nested,
        why: `the id of ${base[nested]?.column.split('.')[0]}, the object the payload is about`,
      }
    : undefined;
}

/**
 * The question of which column is the event's own id, where no column is taken as it and a
 * caller's request reference was named like one (module comment); undefined otherwise. The
 * better candidate, when there is one, is taken as the event's id in place and preselected; else
 * the reference is, and the question says it is the only candidate.
 */
export function requestReferenceQuestion(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  base: Guess[],
): Question | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  // The reference the suggestions named as the event's id and guess.ts kept as a field.
  const refIndex = base.findIndex((g) => {
    const why = requestReference(g.column);
    return g.target === 'event_data' && why !== undefined && g.why.includes(why);
  });
  const ref = base[refIndex];
  // One inside another object is that object's (Stripe's `request.idempotency_key`): nothing to ask.
  if (!ref || !atEnvelopeTop(ref.column) || !fields.some((f) => f.name === ref.column && f.distinct > 0))
    return undefined;
  const refWhy = `${requestReference(ref.column)}: the same for every event about that record`;
  const better = betterCandidate(fields, rows, base);
  const chosen = better ? (base[better.index] as Guess) : ref;
  base[better ? better.index : refIndex] = {
    column: chosen.column,
    target: 'event_id',
    why: `${better ? better.why : refWhy}; asked above, preselected`,
  };
  const options = better
    ? [
        { column: chosen.column, why: better.why },
        { column: ref.column, why: refWhy },
      ]
    : [{ column: ref.column, why: `${refWhy}; no other column is an id of the event` }];
  return {
    target: 'event_id',
    ask: `Which column is the event's own id? ${ref.column} is the caller's reference for a request, not the event's: a wrong one folds different events into one.`,
    options,
  };
}
