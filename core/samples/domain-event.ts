/**
 * An object named `event` that is a domain thing, not the webhook's event (issue #94,
 * docs/creator-inference.md#a-referring-party-a-request-for-money-and-an-object-named-event). A gym's class, a
 * meeting, a calendar entry or a concert is often called an event; the id inside it names that
 * thing, which many bookings and changes share, not this delivery's event. An `event` object
 * (`event.id`, `data.event.uuid`) is the envelope only when it carries the event's name or type
 * (`event.type`, `event.name`, `event.topic`) or the taken id sits at the payload's top. One that
 * names none of those and describes a thing (a `title`, a `start`, a `location`, a `venue`, a
 * `summary`) has its id kept under its own name, and the page asks which column is the event's
 * own id, nothing preselected, offering the ids of the other objects the payload holds (the
 * booking's, the slot's). Pure, but for the guesses and questions it rewrites.
 */
import { nameWords } from './names.ts';
import type { Question } from './questions.ts';
import type { RuleGuess as Guess } from './rule-guess.ts';
import type { InferredField } from './sample.ts';
import { askEventId } from './shared-id.ts';

/** Leaf words (joined) of a column that names the event: the envelope's mark. */
const ENVELOPE = new Set(['type', 'name', 'topic', 'kind', 'action', 'eventtype', 'eventname', 'event']);
/** Leaf words of what describes a domain thing called an event. */
const THING = new Set([
  'title',
  'summary',
  'location',
  'venue',
  'start',
  'starts',
  'end',
  'ends',
  'capacity',
  'duration',
  'instructor',
  'room',
]);

const parentOf = (column: string) => column.slice(0, Math.max(column.lastIndexOf('.'), 0));
const leafOf = (column: string) => column.slice(column.lastIndexOf('.') + 1);

/** Why the id taken as the event's is a domain thing's called an event (module comment), or undefined. */
export function domainEventReason(fields: readonly InferredField[], column: string): string | undefined {
  const parent = parentOf(column);
  if (!parent || nameWords(leafOf(parent)).join(' ') !== 'event') return undefined;
  if (!/^(id|uid|uuid|guid)$/.test(nameWords(leafOf(column)).join(' '))) return undefined;
  const inside = fields.filter((f) => parentOf(f.name) === parent && f.distinct > 0);
  if (inside.some((f) => ENVELOPE.has(nameWords(leafOf(f.name)).join('')))) return undefined;
  const thing = inside.find((f) => nameWords(leafOf(f.name)).some((w) => THING.has(w)));
  return thing
    ? `the id of ${parent}, a thing called an event (${thing.name}), not the webhook's: it names no event type`
    : undefined;
}

/** The rule applied to the guesses and questions, in place (module comment). */
export function domainEventRule(
  fields: readonly InferredField[],
  base: Guess[],
  questions: Question[],
): void {
  const at = base.findIndex((g) => g.target === 'event_id');
  const taken = base[at];
  if (!taken) return;
  const why = domainEventReason(fields, taken.column);
  if (!why) return;
  const own = parentOf(taken.column);
  const others = base
    .filter((g) => g.target === 'event_data' && /^(id|uuid)$/.test(leafOf(g.column)))
    .filter(
      (g) => parentOf(g.column) !== own && parentOf(g.column).split('.').length === own.split('.').length,
    )
    .map((g) => ({
      column: g.column,
      why: `the id of ${parentOf(g.column)}, another record the payload holds`,
    }));
  askEventId(
    base,
    questions,
    at,
    why,
    "every booking of that thing carries it: taken as the event's id, it would fold them into one.",
    others,
  );
}
