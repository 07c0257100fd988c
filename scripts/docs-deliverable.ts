/**
 * The "Deliverable" figures of docs/catalog-destinations.md, written by `npm run docs` from
 * core/platforms/segment-action/deliverable.json — the results test/delivery/catalog-deliverable.test.ts
 * observed (it fails when a run differs from them): how many verified destinations deliver an
 * ordinary event, which of them batch, and why each other one does not, grouped with counts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Undelivered } from '../core/platforms/segment-action/deliverable.ts';

/** Where the results are kept (from the repository's root). */
export const DELIVERABLE_DATA = 'core/platforms/segment-action/deliverable.json';

/** Why a verified destination delivers none of the ordinary events, in the docs' words. */
export const NOT_DELIVERED: Readonly<Record<Undelivered, string>> = {
  audience:
    "an audience destination (Engage: its actions take only audience events, `context.personas`) that delivers nothing even given its members by an audience sync from the warehouse, with the audience Segment's tests name and a stand-in for each audience setting it requires: Segment's own pipeline, or an audience setting only the user can choose whose stand-in names nothing the member carries (the identifier the platform keys its audience by)",
  'user-value':
    'needs a value only the user knows: a required field with no default that the suggested mappings cannot fill (their account’s list, topic or conversion action, a sender, an endpoint) that Segment’s tests give no value for, named after each destination',
  'needs-mapping':
    "every verified action needs a `when` that nothing suggests: it has no subscription of its own and its field defaults read neither the person's traits nor the event's properties",
  'not-taken':
    "takes none of the ordinary events: its actions have no default subscription (or one for events a site does not send), so an action's `when` must say which events go",
  'refused-before-sending':
    'takes an ordinary event but sends nothing, even with the values typed from Segment’s tests and what the user’s events carry: the action needs what only Segment’s own libraries write (their `context.library`), or a mapping only the user can write (their ad account’s encryption info)',
  'no-request':
    "succeeds without sending anything: its actions hand their payload back to Segment's own pipeline (Segment's tracking API behind it), so nothing leaves here",
  'segment-service':
    "calls Segment's own services first (its Profile API, `profiles.segment.com`, for the person's phone or e-mail and their subscription): an account of Segment's Engage the user of this project does not have, so nothing here answers as it would",
  'own-transport':
    "sends over a client of its own (Kafka's protocol through kafkajs), not through the egress gate every call out passes: the settings check refuses it and forward-catalog never runs it ([security.md](security.md#actions-with-a-client-of-their-own))",
  answer:
    "sends, but reads more of the platform's answer than the stand-in gives (`200 {}`, or the answer Segment's tests mocked for that request): a record or a configuration it looks up first",
};
export type NotDelivered = Undelivered;

export interface DeliverableResults {
  readonly verified: number;
  readonly deliverable: readonly {
    readonly slug: string;
    /** The ordinary events delivered (of those its subscriptions take). */
    readonly events: readonly string[];
    /** The events of those it delivered that an action Segment batches by default takes, when any. */
    readonly batched?: readonly string[];
    /**
     * When it delivers only with values the user supplied (a setting, `<action>.<field>`, or
     * `<action>.when`), taken from Segment's own test input for it: those values' names.
     */
    readonly supplied?: readonly string[];
    /**
     * What the user typed (`<action>.when`, `<action>.<field>`, from Segment's own test input) into
     * the actions whose batching Segment forces that the suggested mappings leave out: set up as
     * its user sets them up, the destination's other actions as they are.
     */
    readonly forced?: readonly string[];
    /**
     * An audience destination (Engage's audience events only): delivered as audiences from the
     * warehouse, by an audience sync publishing this call (docs/syncs.md, "Audience events").
     */
    readonly audience?: 'identify' | 'track';
  }[];
  readonly not_delivered: readonly {
    readonly slug: string;
    readonly why: NotDelivered;
    /** For `user-value`: the required fields no suggestion fills, of every verified action. */
    readonly fields?: readonly string[];
    /** What the first refused event's row said. */
    readonly example?: string;
  }[];
}

export function readDeliverable(root: string): DeliverableResults {
  return JSON.parse(readFileSync(join(root, DELIVERABLE_DATA), 'utf8')) as DeliverableResults;
}

/** The generated part: the figure, the batching ones, and the reasons' table. */
export function deliverableTable(r: DeliverableResults): string {
  const batched = r.deliverable.filter((d) => (d.batched ?? []).length > 0).map((d) => d.slug);
  const rows = (Object.keys(NOT_DELIVERED) as NotDelivered[]).map((why) => {
    const slugs = r.not_delivered
      .filter((n) => n.why === why)
      .map((n) =>
        n.fields === undefined ? n.slug : `${n.slug} (${n.fields.map((f) => `\`${f}\``).join(', ')})`,
      );
    return `| ${NOT_DELIVERED[why]} | ${slugs.length} | ${slugs.join(', ')} |`;
  });
  const supplied = r.deliverable.filter((d) => d.supplied !== undefined);
  const forced = r.deliverable.filter((d) => d.supplied === undefined && d.forced !== undefined);
  const audiences = r.deliverable.filter((d) => d.audience !== undefined);
  const ordinary = r.deliverable.length - audiences.length;
  return [
    `**${r.deliverable.length} of the ${r.verified} verified destinations deliver**: ${ordinary} an ordinary event`,
    `(${r.deliverable.filter((d) => d.events.length > 1).length} of all of them more than one event), and ${audiences.length} **delivered as audiences from the warehouse**`,
    "(an audience sync's entry and exit events, [syncs.md](syncs.md#audience-events)). " +
      `${batched.length} of them send in batches by default: ${batched.join(', ')}.`,
    '',
    '| Delivered as audiences from the warehouse | Call | Events |',
    '| --- | --- | --- |',
    ...audiences.map((d) => `| ${d.slug} | ${d.audience} | ${d.events.join(', ')} |`),
    '',
    `**${r.deliverable.length - supplied.length - forced.length} deliver with the suggested mappings alone; ` +
      `${forced.length} with them and the actions whose batching Segment forces set up as their user sets them up; ` +
      `${supplied.length} delivered with values the user supplied**`,
    "(each value from Segment's own test input for that destination; what was typed, by setting or `action.field`):",
    '',
    '| Delivered with values the user supplied | Typed |',
    '| --- | --- |',
    ...supplied.map((d) => `| ${d.slug} | ${(d.supplied ?? []).map((f) => `\`${f}\``).join(', ')} |`),
    '',
    '| Batching forced: the action the suggestions leave out, set up as its user sets it up | Typed |',
    '| --- | --- |',
    ...forced.map((d) => `| ${d.slug} | ${(d.forced ?? []).map((f) => `\`${f}\``).join(', ')} |`),
    '',
    '| Why a verified destination delivers none | Destinations | Which |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}
