/**
 * The fan-out that follows a successful warehouse write, wired to its adapters: the
 * decision layer's `deliveries` messages through `publish`, its `skipped` rows through the
 * ledger writer. Shared by the store function and `replay --events-dead-letters`, so a
 * replayed event is decided and fanned out exactly as a pushed one.
 */

import type { ClaimStore } from '../core/claims/claim-store.ts';
import type { DecisionOptions } from '../core/decision/decision.ts';
import { createConsentWait } from '../core/delivery/consent-wait.ts';
import { createFanOut } from '../core/delivery/fan-out.ts';
import type { LedgerEntry } from '../core/delivery/ledger.ts';
import { DELIVERY_ATTRIBUTES, type DeliveryMessage } from '../core/delivery/message.ts';
import type { AfterStored } from '../core/store/store.ts';
import type { Suppression } from '../core/suppression/erased.ts';
import { TRACE_ATTRIBUTES } from '../core/tracing/trace-context.ts';
import type { RowWriter } from '../core/warehouse/rows.ts';
import type { Settings } from '../schemas/settings.ts';
import { createLedgerWriter } from './ledger-writer.ts';
import { childSpan, contextAttributes, SpanKind } from './tracing.ts';

export interface StoreFanOutDeps {
  readonly settings: Readonly<Settings>;
  /** Publishes on `deliveries`; resolves once every message is published. */
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  /** The writer of the environment's dataset (the ledger is its `deliveries` table). */
  readonly rows: RowWriter;
  /** Where a ledger row the warehouse refused for good is reported (one line each). */
  readonly log?: (line: string) => void;
  /** The decision layer's options (which events are known, definitions' mappings). */
  readonly options?: DecisionOptions;
  /**
   * The claims database: where events decided before the consent platform answered wait for its
   * answer (core/delivery/consent-wait.ts). Absent (a replay): nothing waits.
   */
  readonly claims?: ClaimStore;
  /** The erased persons' list: a pending record's events of an erased person are stripped or dropped. */
  readonly suppression?: () => Suppression | undefined;
  /**
   * Whether the ledger holds a skip row already (adapters/skip-check.ts): asked for a message back
   * after its row was stored, so its skips are not written twice. Absent: always written.
   */
  readonly skipRecorded?: (entry: LedgerEntry, since: number) => Promise<boolean>;
  /** The clock (tests). */
  readonly now?: () => Date;
}

/** The after-write hook, or undefined when no destination is configured (nothing to decide). */
export function createStoreFanOut(deps: StoreFanOutDeps): AfterStored | undefined {
  if ((deps.settings.destinations ?? []).length === 0) return undefined;
  const ledger = createLedgerWriter(deps.rows);
  const log = deps.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  // Each verdict is a `store.decide` span under the push's; a sent one's message carries it, so
  // the destination's `forward` span is its child (docs/observability.md).
  const publish = (messages: readonly DeliveryMessage[]) => deps.publish(messages.map(sentDecision));
  const wait = deps.claims
    ? createConsentWait({
        settings: deps.settings,
        records: deps.claims,
        publish,
        ...(deps.options ? { options: deps.options } : {}),
        ...(deps.suppression ? { suppression: deps.suppression } : {}),
      })
    : undefined;
  return createFanOut({
    settings: deps.settings,
    publish,
    ...(wait ? { wait } : {}),
    ...(deps.skipRecorded ? { skipRecorded: deps.skipRecorded } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.options ? { options: deps.options } : {}),
    writeLedger: (entries) =>
      ledger.write(skippedDecisions(entries)).then((refused) => {
        for (const r of refused)
          log(JSON.stringify({ severity: 'ERROR', message: `ledger row refused: ${r.message}` }));
      }),
  });
}

/** A message to a destination, as a decision span's child: the span made, its context carried. */
function sentDecision(m: DeliveryMessage): DeliveryMessage {
  const span = childSpan('store.decide', SpanKind.INTERNAL, {
    'eventbus.destination': m.attributes[DELIVERY_ATTRIBUTES.destination] ?? '',
    'eventbus.verdict': 'send',
  });
  span.end();
  const carried = contextAttributes(span);
  return carried[TRACE_ATTRIBUTES.traceparent] === undefined
    ? m
    : { data: m.data, attributes: { ...m.attributes, ...carried } };
}

/** Skips, each a `store.decide` span with its reason (the ledger's words: settings and kinds, no values). */
function skippedDecisions(entries: readonly LedgerEntry[]): readonly LedgerEntry[] {
  for (const e of entries)
    childSpan('store.decide', SpanKind.INTERNAL, {
      'eventbus.destination': e.row.destination,
      'eventbus.verdict': 'skip',
      'eventbus.reason': (e.row.reason ?? '').slice(0, 256),
    }).end();
  return entries;
}
