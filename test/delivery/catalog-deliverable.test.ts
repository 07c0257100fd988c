/**
 * Verified means deliverable (issue #95; docs/catalog-destinations.md, "Deliverable"): every
 * destination the conformance run verified (docs/data/segment-conformance.json) is set up as a
 * user sets it up without writing a mapping (test/support/catalog-deliverable.ts) and given each
 * of the ordinary events its subscriptions take — an order, an identify, a page view, a product
 * added to the cart, a group call — through the driver forward-catalog carries
 * (adapters/segment-actions/driver.ts: batches included). Every request goes to a capturing
 * stand-in on loopback through `base_url` (each destination under its own path), which answers as
 * Segment's tests mocked the same request, else 200 `{}` (test/support/user-supplied.ts). A
 * destination that delivers nothing so is set up again with the values its user would type, taken
 * from Segment's tests of it (setUp's `supplied`); the results say which took them.
 *
 * The results — which destinations deliver which events, and why each other one does not, grouped
 * — are core/platforms/segment-action/deliverable.json, the source of the docs' table (`npm run docs`): the run
 * must give exactly what is committed. EVENTBUS_UPDATE_DELIVERABLE=1 writes the file anew, to be
 * reviewed (an update of the pinned package, or a fix that makes more deliver).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { segmentActionDriver } from '../../adapters/segment-actions/driver.ts';
import { runEnvironment } from '../../adapters/segment-actions/run-context.ts';
import type { StoredEvent } from '../../core/event.ts';
import { catalogEntry } from '../../core/platforms/segment-action/catalog.ts';
import { segmentActionProblems } from '../../core/platforms/segment-action/check.ts';
import { segmentActionTakes } from '../../core/platforms/segment-action/subscription.ts';
import {
  DELIVERABLE_DATA,
  type DeliverableResults,
  NOT_DELIVERED,
  type NotDelivered,
} from '../../scripts/docs-deliverable.ts';
import {
  AUDIENCE_KINDS,
  audienceCall,
  audienceOf,
  audienceOnly,
  audienceSync,
  batchedKinds,
  memberEvent,
  memberRow,
  mintedId,
  ORDINARY,
  ordinaryEvent,
  saved,
  setUp,
  VERIFIED,
  type Verified,
  withEventValues,
} from '../support/catalog-deliverable.ts';
import { standIn } from '../support/catalog-delivery.ts';
import { REPO } from '../support/local-start.ts';
import { platformAnswerAt } from '../support/user-supplied.ts';

const NOW = new Date('2026-11-27T08:00:00.000Z');

interface Verdict {
  readonly slug: string;
  /** The ordinary events its subscriptions take, and those delivered. */
  readonly taken: string[];
  readonly delivered: string[];
  /** Whether any taken event made a request; the first reason an event was not delivered. */
  readonly sent: boolean;
  readonly firstReason?: string;
  /** Set up as a user would (setUp): whether any action needs no mapping; which events batch. */
  readonly usable: boolean;
  /** When no action is usable: the required fields only the user can fill. */
  readonly questions: string[];
  readonly batched: string[];
  /** Set up with the values the user supplied (setUp's `typed`), when it took them to deliver. */
  readonly supplied?: string[];
  /** What the user typed into the actions whose batching Segment forces (setUp's `forced`). */
  readonly forced?: string[];
  /** An audience destination: the call its audience sync publishes. */
  readonly audience?: 'identify' | 'track';
}

/** Why a destination delivers none of the ordinary events, from what the run observed. */
/** What an action that succeeds without making a request is said to have done. */
const NO_REQUEST = 'succeeded without a request: the action hands its payload to Segment’s own pipeline';
/** What an action that succeeds before its requests are answered is said to have done. */
const UNAWAITED =
  'succeeded before any request it made was answered: the action does not wait for its requests, so nothing says the platform took them';

/** Hosts of Segment's own services (its Profile API, its tracking API): no platform of the user's. */
const SEGMENT_HOST = /(^|\.)(segment\.com|segment\.io|segmentapis\.com)$/;

function groupOf(v: Verified, verdict: Verdict, usable: boolean, hosts: ReadonlySet<string>): NotDelivered {
  // Every action would connect around the egress gate: refused whatever else it needs.
  if (catalogEntry(v.slug)?.actions.every((a) => a.transport !== undefined)) return 'own-transport';
  if ([...hosts].some((h) => SEGMENT_HOST.test(h))) return 'segment-service';
  // An audience destination whose audience settings only the user can give asks for them.
  if (audienceOnly(v)) return verdict.questions.length > 0 ? 'user-value' : 'audience';
  if (!usable) return verdict.questions.length > 0 ? 'user-value' : 'needs-mapping';
  if (verdict.taken.length === 0) return 'not-taken';
  if (verdict.firstReason?.endsWith(NO_REQUEST)) return 'no-request';
  return verdict.sent ? 'answer' : 'refused-before-sending';
}

/** `run` over `items`, at most `width` at a time; the results in the items' order. */
async function inTurns<T, R>(items: readonly T[], width: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await run(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

describe('segment_action: every verified destination delivers the ordinary events it takes (its default presets)', () => {
  let stand: Awaited<ReturnType<typeof standIn>>;
  // As forward-catalog's entry puts it in place (functions/forward-catalog/index.ts): what Segment
  // reads from its environment answers each run with its destination's own secrets.
  const own = process.env;
  before(async () => {
    process.env = runEnvironment(own);
    // Each destination under its own path; what its platform answers, as Segment's tests mock it.
    stand = await standIn(platformAnswerAt);
  });
  after(() => {
    process.env = own;
    stand.server.close();
  });

  it('delivers to each destination as the committed results say, and says why the others do not', async function () {
    // About 6 s of CPU in this process; a loaded machine stretches it past mocha's default 30 s.
    this.timeout(120_000);
    const driver = segmentActionDriver(globalThis.fetch);
    const perform = driver.perform as NonNullable<typeof driver.perform>;
    /** The run of one destination set up as a user would; `supplied`: with the values they type. */
    const deliver = async (v: Verified, supplied: boolean): Promise<Verdict> => {
      const { destination, secrets, usable, questions, typed, forced, events } = setUp(
        v,
        `${stand.base}/${v.slug}`,
        supplied,
      );
      // What a user saves must pass the settings check, connection included.
      const settings = saved(destination, secrets);
      assert.deepEqual(segmentActionProblems(settings.destination, v.slug, settings.connections), []);
      const verdict: Verdict = {
        slug: v.slug,
        taken: [],
        delivered: [],
        sent: false,
        usable,
        questions,
        batched: [],
      };
      const reasons: string[] = [];
      // An audience destination is given its members by an audience sync (a call its actions take),
      // the others the ordinary events.
      const call = audienceOnly(v) ? audienceCall(destination, v.slug, supplied) : undefined;
      const sync = call === undefined ? undefined : audienceSync(v.slug, audienceOf(v.slug, supplied, call));
      const member = memberRow('u-1', 'jane@example.com');
      const eventOf = (kind: string) =>
        sync === undefined ? undefined : memberEvent(sync, kind, member, NOW);
      const kinds = audienceOnly(v)
        ? sync === undefined
          ? []
          : AUDIENCE_KINDS.map((kind) => ({ kind, event: eventOf(kind) as StoredEvent }))
        : ORDINARY.map((kind) => ({
            kind: kind.kind,
            event: withEventValues(ordinaryEvent(kind, mintedId(), NOW), events),
          }));
      if (call !== undefined) Object.assign(verdict, { audience: call });
      for (const kind of kinds) {
        const event = kind.event;
        // As `store` judges it: an event no action takes is skipped, never published.
        if (segmentActionTakes(destination, event) === false) continue;
        verdict.taken.push(kind.kind);
        const performed = await perform(event, { destination, secrets, now: NOW });
        if (performed.answered !== undefined) Object.assign(verdict, { sent: true });
        // Delivered only when its requests reached the stand-in and were answered within the run:
        // Segment's own destinations hand their payload back to Segment's pipeline and send
        // nothing; an action that does not wait for its requests knows nothing of their answers.
        if (performed.outcome.status === 'delivered' && performed.answered === true)
          verdict.delivered.push(kind.kind);
        else if (performed.outcome.status === 'delivered' && performed.answered === false)
          reasons.push(`${kind.kind}: ${UNAWAITED}`);
        else if (performed.outcome.status === 'delivered') reasons.push(`${kind.kind}: ${NO_REQUEST}`);
        else reasons.push(`${kind.kind}: ${performed.outcome.reason}`);
      }
      verdict.batched.push(
        ...(sync === undefined
          ? batchedKinds(destination, verdict.delivered)
          : batchedKinds(destination, verdict.delivered, eventOf)),
      );
      if (supplied) Object.assign(verdict, { supplied: typed });
      if (forced.length > 0) Object.assign(verdict, { forced });
      return reasons[0] === undefined ? verdict : { ...verdict, firstReason: reasons[0].slice(0, 240) };
    };
    // A few destinations at a time: each one's first run loads its module and compiles its
    // schemas synchronously, in this process, while the others' requests wait for their answers
    // on the same event loop. All at once, on a loaded machine, that work outlasted the 10 s a
    // request may take, and an early event of many destinations timed out (a result of the
    // machine, not of the destination). Nothing here depends on destinations running together.
    const verdicts = await inTurns(VERIFIED, 4, async (v): Promise<Verdict> => {
      const plain = await deliver(v, false);
      // Delivered with suggestions alone, or Segment's own: as it is.
      if (plain.delivered.length > 0 || plain.firstReason?.endsWith(NO_REQUEST)) return plain;
      // Else the user types what only they know, as the destination's own tests give it.
      const typed = await deliver(v, true);
      if (typed.delivered.length > 0) return typed;
      // Still none: why, as set up with what the user typed (when any action was left to run).
      const { supplied: _typed, ...without } = typed;
      return typed.usable ? without : plain;
    });
    /** The hosts a destination's requests were for (each under `/standin/<slug>/<host>/…`). */
    const hostsOf = (slug: string) =>
      new Set(
        stand.captured.flatMap((c) => {
          const m = /^\/standin\/([a-z0-9-]+)\/([^/?]+)/.exec(c.path);
          return m?.[1] === slug && m[2] !== undefined ? [m[2].toLowerCase()] : [];
        }),
      );
    const results: DeliverableResults = {
      verified: VERIFIED.length,
      deliverable: verdicts
        .filter((v) => v.delivered.length > 0)
        .map((v) => ({
          slug: v.slug,
          events: v.delivered,
          ...(v.batched.length > 0 ? { batched: v.batched } : {}),
          ...(v.supplied === undefined ? {} : { supplied: v.supplied }),
          ...(v.forced === undefined ? {} : { forced: v.forced }),
          ...(v.audience === undefined ? {} : { audience: v.audience }),
        })),
      not_delivered: verdicts
        .filter((v) => v.delivered.length === 0)
        .map((v) => {
          const why = groupOf(
            VERIFIED.find((x) => x.slug === v.slug) as Verified,
            v,
            v.usable,
            hostsOf(v.slug),
          );
          return {
            slug: v.slug,
            why,
            ...(why === 'user-value' ? { fields: v.questions } : {}),
            ...(v.firstReason ? { example: v.firstReason } : {}),
          };
        }),
    };
    console.log(
      `      ${results.deliverable.length} of ${results.verified} verified destinations deliver an ordinary event; ` +
        Object.keys(NOT_DELIVERED)
          .map((g) => `${g} ${results.not_delivered.filter((n) => n.why === g).length}`)
          .join(', '),
    );
    const file = join(REPO, DELIVERABLE_DATA);
    if (process.env['EVENTBUS_UPDATE_DELIVERABLE'] === '1')
      writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    const committed = JSON.parse(readFileSync(file, 'utf8')) as DeliverableResults;
    const lost = committed.deliverable
      .filter((d) => !results.deliverable.some((r) => r.slug === d.slug))
      .map((d) => `${d.slug}: ${verdicts.find((v) => v.slug === d.slug)?.firstReason ?? 'not verified'}`);
    assert.deepEqual(lost, [], 'destinations that delivered and no longer do');
    assert.deepEqual(
      results,
      committed,
      `the run differs from ${DELIVERABLE_DATA}: rerun with EVENTBUS_UPDATE_DELIVERABLE=1 and review`,
    );
    const delivered = results.deliverable.reduce((n, d) => n + d.events.length, 0);
    assert.ok(stand.captured.length >= delivered, 'each delivery reached the stand-in');
  });
});
