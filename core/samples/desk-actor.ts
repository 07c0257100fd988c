/**
 * A desk's user who acted on a record is the business's (issue #94,
 * docs/creator-inference.md#a-currency-that-follows-its-value-a-status-reports-shape-and-a-desks-user).
 * From held-out-26's case desk: a team member pressed an action on a case, and the body names
 * that member as its `user` beside the `case` and the `button` pressed; the member's id, e-mail
 * and names were taken as the person's. Whoever works a case, ticket or issue inside the
 * business's own tool (a user, member, agent, operator or admin of the vendor's workspace) is the
 * business's party, not the person the record is about. Read by shape, three things side by side
 * at the envelope's level (the top, or under envelopes only): a software user's object; a work
 * record the business's team works (`case`, `ticket`, `issue`, `incident`, `task`; an object or
 * its id); and an action pressed or run on it (`button`, `action`, `macro`, `command`, `shortcut`).
 * Unless the event's name says the event is about that user themselves (their sign-up, login,
 * profile, or the user's own record: `user.updated`), the user object's details are then never
 * the person's: party.ts `heldByBusiness` reads this with the objects that say they hold the
 * business's people. Pure.
 */
import { eventNamed } from './moneyless-event.ts';
import { nameWords } from './names.ts';
import { WRAPPERS } from './roles.ts';
import type { InferredField } from './sample.ts';

/** Objects that hold whoever uses the vendor's software. */
const SOFTWARE_USERS = new Set(['user', 'member', 'agent', 'operator', 'admin', 'teammate', 'staff']);
/** Records a business's team works in its own tool. */
const WORK = new Set(['case', 'ticket', 'issue', 'incident', 'task']);
/** What a team member presses or runs on such a record. */
const ACTION = new Set(['button', 'action', 'macro', 'command', 'shortcut']);
/** Words of an event about the user themselves: their sign-up, login, profile. */
const SELF = new Set([
  'signup',
  'signed',
  'sign',
  'login',
  'logout',
  'logged',
  'register',
  'registered',
  'registration',
  'profile',
  'password',
  'invited',
  'invite',
]);

/** A name's words joined, as the sets above hold them. */
const joined = (segment: string) => nameWords(segment).join('');

/**
 * Why a column sits in a desk's user object beside a work record and an action (module comment),
 * or undefined; one reading per payload.
 */
export function deskActor(fields: readonly InferredField[]): (column: string) => string | undefined {
  // The children at each envelope level: their first segment, and whether it is an object.
  const levels = new Map<string, Map<string, boolean>>();
  for (const f of fields) {
    const segs = f.name.split('.');
    let at = 0;
    while (at < segs.length - 1 && WRAPPERS.has(joined(segs[at] as string))) at++;
    const level = segs.slice(0, at).join('.');
    const children = levels.get(level) ?? new Map<string, boolean>();
    children.set(segs[at] as string, (children.get(segs[at] as string) ?? false) || at < segs.length - 1);
    levels.set(level, children);
  }
  const named = eventNamed(fields);
  const self = named ? nameWords(named.value) : [];
  const users: { prefix: string; why: string }[] = [];
  for (const [level, children] of levels) {
    const first = (set: ReadonlySet<string>) =>
      [...children.keys()].find((c) => set.has(nameWords(c)[0] ?? ''));
    const work = first(WORK);
    const action = first(ACTION);
    if (!work || !action) continue;
    for (const [child, object] of children) {
      const word = joined(child);
      if (!object || !SOFTWARE_USERS.has(word)) continue;
      if (self.some((w) => SELF.has(w) || w === word)) continue;
      const prefix = level ? `${level}.${child}.` : `${child}.`;
      users.push({
        prefix,
        why: `${child} beside ${work}, a record the business's team works, and ${action}, what was pressed on it: the team member who acted, the business's side, not the person`,
      });
    }
  }
  return (column) => users.find((u) => column.startsWith(u.prefix))?.why;
}
