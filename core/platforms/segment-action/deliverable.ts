/**
 * What the project's own run of the catalogue found a verified destination delivers
 * (deliverable.json, written by test/delivery/catalog-deliverable.test.ts, which fails when a run
 * differs from it; docs/catalog-destinations.md, "Deliverable"). Verified by Segment's tests is not
 * delivered: a destination the run could not make deliver any ordinary event here is said so
 * wherever a user picks it (`eventbus settings check`, the studio's and the command line's
 * catalogue lists), with why. Pure data.
 */
import results from './deliverable.json' with { type: 'json' };

/** Why a verified destination delivers none of a site's ordinary events here, in a user's words. */
export const UNDELIVERED_SAYS = {
  audience:
    "takes only audience events of Segment's Engage, and delivered none even given an audience sync's members: it needs Segment's own pipeline or an audience setting only you can choose",
  'user-value':
    'needs a value only you know (a list, topic, conversion action, sender or endpoint of your account)',
  'needs-mapping': 'every action needs a `when` of yours: nothing suggests which events go',
  'not-taken': 'takes none of the ordinary events until an action is given a `when`',
  'refused-before-sending':
    "refuses the events before sending: it needs what only Segment's own libraries write, or a mapping only you can write",
  'no-request': "sends nothing out: its actions hand the event back to Segment's own pipeline",
  'segment-service':
    "calls Segment's own services first (its Profile API), which answer only Segment's Engage accounts",
  'own-transport': 'connects by a client of its own, around the egress gate: refused here',
  answer:
    "reads more of the platform's answer than a plain success: a record or configuration of your account",
} as const;
export type Undelivered = keyof typeof UNDELIVERED_SAYS;

interface NotDeliveredEntry {
  readonly slug: string;
  readonly why: string;
  readonly example?: string;
}

const NOT_DELIVERED: ReadonlyMap<string, NotDeliveredEntry> = new Map(
  (results.not_delivered as readonly NotDeliveredEntry[]).map((e) => [e.slug, e]),
);

const isUndelivered = (why: string): why is Undelivered => Object.hasOwn(UNDELIVERED_SAYS, why);

/** Whether the run made the destination deliver, and if not why (its group and its first refusal). */
export function undelivered(
  slug: string,
): { readonly why: Undelivered; readonly says: string; readonly example?: string } | undefined {
  const entry = NOT_DELIVERED.get(slug);
  if (entry === undefined) return undefined;
  if (!isUndelivered(entry.why))
    throw new Error(`deliverable.json: ${slug}'s reason ${entry.why} is not one of ours`);
  return {
    why: entry.why,
    says: UNDELIVERED_SAYS[entry.why],
    ...(entry.example === undefined ? {} : { example: entry.example }),
  };
}
