/**
 * The vocabulary the platforms' built-in mappings are written in: a table of target field →
 * rule, and the small rule builders they share.
 */
import type { FieldSource, Transform } from '../../schemas/mapping.ts';

/** Target field (dotted path in the platform's payload) → where its value comes from. */
export type Fields = Record<string, FieldSource>;

/** A platform's built-in mapping: the envelope every event gets, plus each catalogue event's own fields. */
export interface PlatformMapping {
  readonly envelope: Fields;
  readonly events: Record<string, { event: string; fields: Fields }>;
  /**
   * Events the platform knows by its own name that the catalogue has not (GA4's recommended
   * `login`, `share`…): a custom event of that name is sent under it with these fields, as a
   * sender of the platform's own protocol sent it, with no mapping in the settings.
   */
  readonly native?: Record<string, { event: string; fields: Fields }>;
}

/** A number read from `from`. */
export const num = (from: string | string[]): FieldSource => ({ from, transform: ['number'] });

/** PII as the ad platforms want it: normalised, SHA-256, sent as a list. */
export const hashedList = (from: string | string[], ...normalise: Transform[]): FieldSource => ({
  from,
  transform: [...normalise, 'sha256', 'list'],
});

/**
 * The personal fields Pinterest and Snapchat hash alike (docs/platforms.md, "Pinterest" and "Snapchat"), under
 * `prefix` (`user_data`): e-mail and names trimmed and lower-cased, the phone as digits with its
 * country code and no `+`, the rest by the shared normalisers; each SHA-256, as a list.
 */
export const hashedPersonFields = (prefix: string): Fields => ({
  [`${prefix}.em`]: hashedList('user.email', 'trim', 'lowercase'),
  [`${prefix}.ph`]: hashedList('user.phone', { phone: 'digits' }),
  [`${prefix}.fn`]: hashedList('user.first_name', 'trim', 'lowercase'),
  [`${prefix}.ln`]: hashedList('user.last_name', 'trim', 'lowercase'),
  [`${prefix}.ge`]: hashedList('user.gender', 'gender'),
  [`${prefix}.db`]: hashedList('user.date_of_birth', 'date_of_birth'),
  [`${prefix}.ct`]: hashedList('user.city', 'city'),
  [`${prefix}.st`]: hashedList('user.region', 'state'),
  [`${prefix}.zp`]: hashedList('user.postal_code', 'zip'),
  [`${prefix}.country`]: hashedList('user.country', 'country'),
});

/** The item ids of an event's `items` and their summed quantities (a line without one counts 1). */
export const itemIdsAndCount = (ids: string, count: string): Fields => ({
  [ids]: { each: 'items', value: { from: '$.item_id', transform: ['string'] } },
  [count]: {
    list: [{ each: 'items', value: { from: '$.quantity', transform: ['number'], default: 1 } }],
    transform: ['sum'],
  },
});
