/**
 * The fan-out that follows a successful warehouse write, wired to its adapters: the
 * decision layer's `deliveries` messages through `publish`, its `skipped` rows through the
 * ledger writer. Shared by the store function and `replay --events-dead-letters`, so a
 * replayed event is decided and fanned out exactly as a pushed one.
 */

import type { DecisionOptions } from '../core/decision/decision.ts';
import { createFanOut } from '../core/delivery/fan-out.ts';
import type { DeliveryMessage } from '../core/delivery/message.ts';
import type { AfterStored } from '../core/store/store.ts';
import type { RowWriter } from '../core/warehouse/rows.ts';
import type { Settings } from '../schemas/settings.ts';
import { createLedgerWriter } from './ledger-writer.ts';

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
}

/** The after-write hook, or undefined when no destination is configured (nothing to decide). */
export function createStoreFanOut(deps: StoreFanOutDeps): AfterStored | undefined {
  if ((deps.settings.destinations ?? []).length === 0) return undefined;
  const ledger = createLedgerWriter(deps.rows);
  const log = deps.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  return createFanOut({
    settings: deps.settings,
    publish: deps.publish,
    ...(deps.options ? { options: deps.options } : {}),
    writeLedger: (entries) =>
      ledger.write(entries).then((refused) => {
        for (const r of refused)
          log(JSON.stringify({ severity: 'ERROR', message: `ledger row refused: ${r.message}` }));
      }),
  });
}
