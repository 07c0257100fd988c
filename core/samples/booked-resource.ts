/**
 * A booked resource and the account's user who booked it (issue #94, docs/creator-inference.md,
 * "An account's user and a booked resource"). From held-out-31's resource
 * scheduling tool: a booking reserves a `resource`, the business's staff member or room, and the
 * envelope names under `user` the account's user who acted; the booking names no customer. The
 * resource's e-mail and the user's id were filled as the person's. Read by shape: a body that
 * books (a column named for a booking, `booker`, `booking_ids`, or a kind's value `booking`,
 * `reservation`, `appointment`) holding a `resource` object (or `resources`) with an id or a
 * contact of its own: that object's details are the business's, and so is the envelope's
 * top-level `user` object where the booking stands under a wrapper (`payload`, `data`) beside it,
 * the account's user who made the change. Never the person's; party.ts `heldByBusiness` reads it.
 * Pure.
 */
import { nameWords } from './names.ts';
import { WRAPPERS } from './roles.ts';
import type { InferredField } from './sample.ts';

/** Words that name a booking, in a column's name or a kind's value. */
const BOOKING = new Set(['booking', 'bookings', 'booker', 'reservation', 'reservations', 'appointment']);
/** Names of the object a booking reserves, its words joined. */
const RESOURCE = new Set(['resource', 'resources']);
/** Names of the envelope's acting user, its words joined. */
const ACTOR = new Set(['user', 'actor', 'member']);
/** Last names of a kind column whose value may name the record a booking. */
const KIND = new Set(['type', 'kind', 'object']);

const joined = (segment: string) => nameWords(segment).join('');

/** Whether the body books something: a column named for a booking, or a kind's value naming one. */
function books(fields: readonly InferredField[]): boolean {
  return fields.some((f) => {
    if (f.name.split('.').some((s) => nameWords(s).some((w) => BOOKING.has(w)))) return true;
    const leaf = f.name.slice(f.name.lastIndexOf('.') + 1);
    return (
      KIND.has(joined(leaf)) &&
      f.examples.some((v) => typeof v === 'string' && nameWords(v).some((w) => BOOKING.has(w)))
    );
  });
}

/** Why a column is a booked resource's or the account user's who booked it (module comment). */
export function bookedResource(fields: readonly InferredField[]): (column: string) => string | undefined {
  const resources = new Set<string>();
  for (const f of fields) {
    const segs = f.name.split('.');
    const at = segs.findIndex((s, i) => i < segs.length - 1 && RESOURCE.has(joined(s)));
    if (at >= 0 && f.distinct > 0) resources.add(segs.slice(0, at + 1).join('.'));
  }
  if (resources.size === 0 || !books(fields)) return () => undefined;
  const wrapped = [...resources].some((r) => WRAPPERS.has(joined(r.split('.')[0] ?? '')) && r.includes('.'));
  return (column) => {
    const resource = [...resources].find((r) => column.startsWith(`${r}.`));
    if (resource)
      return `in ${resource}, what the booking reserves (a staff member, a room): the business's side, not the person`;
    const segs = column.split('.');
    if (wrapped && segs.length === 2 && ACTOR.has(joined(segs[0] ?? '')))
      return `the envelope's ${segs[0]} beside a booking of a resource: the account's user who made it, the business's side, not the person`;
    return undefined;
  };
}
