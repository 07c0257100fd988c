/**
 * A resource's reference as the event's id (docs/creator-inference.md, "A resource's reference",
 * issue #94). Some webhooks carry no id of their own, only a pointer to what the event is about
 * under a generic name at their top: a `resource_id` beside `resource_id_type: "Appointment"`, a
 * `resource_url` to fetch the order or the shipment by, an `object_id` or `entityId`. Nothing else
 * tells one event from another, and two webhooks about the same record (a later change) share it,
 * so the page asks, never fills it: the one such column preselected, several offered with no
 * answer preselected. Only where nothing is taken or asked as the event's id already, at the
 * payload's top, with a value in every row, no two alike, shaped as an id or a URL, and not typed
 * as a person's record (`entity_type: customer`: subject-id.ts asks that as the person's). Pure.
 */
import { askColumns } from './ask-columns.ts';
import { everyRowOwn } from './delivery.ts';
import { nameWords } from './names.ts';
import { personWord } from './party.ts';
import type { Question } from './questions.ts';
import type { RuleGuess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';

/** Generic names of the thing an event is about. */
const GENERIC = new Set(['resource', 'object', 'entity', 'record']);
/** What the reference is written as: an id, or an address to fetch it by. */
const REFERENCE = new Set(['id', 'uuid', 'url', 'uri', 'href']);

/** Whether a column is a generic reference at the payload's top (`resource_id`, `objectId`, `resource_url`). */
export function resourceReference(column: string): boolean {
  if (column.includes('.')) return false;
  const w = nameWords(column);
  return w.length === 2 && GENERIC.has(w[0] as string) && REFERENCE.has(w[1] as string);
}

/**
 * Whether the reference's own type (`entity_type: customer`, `resource_id_type`) says it is a
 * person's record in some row: it is then the person's id as much as the event's, which
 * subject-id.ts asks about.
 */
function personTyped(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  column: string,
): boolean {
  const [generic] = nameWords(column);
  const types = fields.filter((f) => {
    const w = nameWords(f.name);
    return !f.name.includes('.') && w[0] === generic && (w.includes('type') || w.includes('name'));
  });
  return types.some((t) => rows.some((r) => nameWords(String(r[t.name] ?? '')).some(personWord)));
}

/** The question (module comment), or undefined; the one preselected is rewritten in place. */
export function resourceIdQuestion(
  base: RuleGuess[],
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  questions: readonly Question[],
): Question | undefined {
  if (base.some((g) => g.target === 'event_id')) return undefined;
  if (questions.some((q) => (q.field ?? q.target) === 'event_id')) return undefined;
  const kept = new Set(base.filter((g) => g.target === 'event_data').map((g) => g.column));
  const refs = fields.filter(
    (f) =>
      f.distinct > 0 &&
      kept.has(f.name) &&
      resourceReference(f.name) &&
      (f.type === 'string' || f.type === 'integer') &&
      !/\s/.test(String(f.examples[0] ?? ' ')) &&
      everyRowOwn(rows, f.name) &&
      !personTyped(fields, rows, f.name),
  );
  if (refs.length === 0) return undefined;
  const options = refs.map((f) => ({
    column: f.name,
    why: `names the resource the event is about, at the payload's top, and nothing else is an id of the event`,
  }));
  const one = refs.length === 1 ? refs[0]?.name : undefined;
  return askColumns(base, 'event_id', options, one !== undefined, {
    ask: one
      ? `Is ${one} the event's own id? The payload has no id of its own; ${one} names the resource it is about: taken as the event's id, a second webhook about the same resource (a later change of it) is folded into the first.`
      : "Which column is the event's own id? The payload has no id of its own; each of these names a resource it is about, and nothing says which.",
    taken: 'the resource the event is about, the payload having no id of its own: asked above, preselected',
    none: 'several resources, and nothing says which the event is about',
  });
}
