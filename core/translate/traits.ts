/**
 * A person's traits as a page gives them (Segment's `identify` traits: `firstName`, `birthday`,
 * an `address` object, anything else the site keeps) split into the event contract's `user`
 * group (schemas/context.ts) and the rest. The gateway does it for the tag's form of the plain
 * route (gateway/envelope.ts, `tag=1`; docs/browser.md, "The tag's bytes"): the tag sends the
 * traits it was given, and the stored event has the same shape it had when the tag split them
 * itself. Pure.
 */

type Fields = Record<string, unknown>;

/** The `user` group's fields a trait fills, and each one's longest value. */
const USER_FIELDS: ReadonlyMap<string, number> = new Map([
  ['email', 320],
  ['phone', 64],
  ['first_name', 256],
  ['last_name', 256],
  ['date_of_birth', 10],
  ['gender', 32],
  ['city', 256],
  ['region', 256],
  ['postal_code', 32],
  ['country', 64],
  ['external_id', 256],
]);
/** Segment's trait names that are not ours snake_cased (`firstName` is `first_name`). */
const TRAIT_NAMES: ReadonlyMap<string, string> = new Map([
  ['birthday', 'date_of_birth'],
  ['state', 'region'],
]);

/**
 * The trait names that fill a `user` field (`first_name`: `first_name`, `firstName`), or none
 * for a field the group does not have: where a call as sent keeps what the PII policy names by
 * its `user.` path (core/store/invalid-call.ts).
 */
export function traitNames(field: string): string[] {
  if (!USER_FIELDS.has(field)) return [];
  const camel = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const segment = [...TRAIT_NAMES].filter(([, f]) => f === field).map(([name]) => name);
  return [...new Set([field, camel, ...segment])];
}

const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Traits split into the `user` group and the rest (kept as the identify event's data). An
 * address's parts are traits of their own; an address that is no object is not kept. A value
 * the group would refuse (too long, a birthday that is no date, an object) stays in the rest:
 * the `user` group rides on every later event, and one bad field would have every one of them
 * refused.
 */
export function traitsOf(traits: Fields): { user: Fields; rest: Fields } {
  const user: Fields = {};
  const rest: Fields = {};
  const address = traits['address'];
  const all: Fields = { ...traits, ...(isObject(address) ? address : {}) };
  for (const name of Object.keys(all)) {
    const value = all[name];
    if (name === 'address' || value === undefined || value === null || value === '') continue;
    const field = TRAIT_NAMES.get(name) ?? name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const max = USER_FIELDS.get(field);
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    let text = scalar ? String(value) : '';
    if (field === 'date_of_birth') text = text.slice(0, 10);
    const fits =
      scalar &&
      max !== undefined &&
      text.length <= max &&
      (field !== 'date_of_birth' || /^\d{4}-\d\d-\d\d$/.test(text));
    if (fits) user[field] = text;
    else rest[name] = value;
  }
  return { user, rest };
}

/**
 * One event of the tag's form in the contract's shape: its `traits` (every trait the page gave
 * so far) become its `user` group, and an `identify` event's data keeps only the traits of its
 * call that are not the group's. An event without `traits` is returned as it is; `traits` that
 * are no object are left for the normaliser to report (as event data, which takes any value).
 */
export function withTraitsSplit(raw: unknown): unknown {
  if (!isObject(raw) || !Object.hasOwn(raw, 'traits') || !isObject(raw['traits'])) return raw;
  const { traits, ...event } = raw;
  const { user } = traitsOf(traits as Fields);
  if (Object.keys(user).length > 0)
    event['user'] = { ...user, ...(isObject(event['user']) ? event['user'] : {}) };
  const data = event['event_data'];
  if (event['event_name'] === 'identify' && isObject(data)) {
    const { rest } = traitsOf(data);
    if (Object.keys(rest).length > 0) event['event_data'] = rest;
    else delete event['event_data'];
  }
  return event;
}
