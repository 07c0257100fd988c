/**
 * Re-sending warehouse rows to one destination (a slice replay): each row becomes its stored
 * event again, the decision layer runs again (consent and the definition's mappings still
 * apply), permitted events are published with replay=true and refused ones get a `skipped` ledger
 * row with replay = true. The CLI (`eventbus replay --destination … --from … --to …`) and the
 * scheduler's Replay job (the console's replays) both send their pages through here.
 */
import type { Destination } from '../../schemas/settings.ts';
import { CATALOGUE_OPTIONS, decideOne } from '../decision/decision.ts';
import type { DefinedEvent } from '../definitions/defined-events.ts';
import { type LedgerEntry, skippedEntry } from './ledger.ts';
import { type DeliveryMessage, deliveryMessage } from './message.ts';
import { storedEventFromRow } from './replay.ts';

export interface SliceSender {
  /** Sends one page of rows; what was published and what was refused again. */
  page(rows: readonly Readonly<Record<string, unknown>>[]): Promise<{ republished: number; skipped: number }>;
}

export function sliceSender(input: {
  readonly destination: Readonly<Destination>;
  readonly publish: (messages: readonly DeliveryMessage[]) => Promise<unknown>;
  readonly writeLedger: (entries: readonly LedgerEntry[]) => Promise<unknown>;
  /**
   * A defined event's version (`name@major.minor`): the platforms its definition maps it to
   * take it, as in `store`'s decision. Absent, or undefined for a stamp: only webhooks do.
   */
  readonly definition?: (stamp: string) => Promise<DefinedEvent | undefined>;
  /**
   * Send again what the destination already has (`replay --force`: a changed mapping); without it
   * each event's send-once claim folds what was delivered (a `folded` ledger row) and sends the rest.
   */
  readonly force?: boolean;
  readonly now?: () => Date;
}): SliceSender {
  const now = input.now ?? (() => new Date());
  // One read per definition version for the whole replay.
  const definitions = new Map<string, DefinedEvent | undefined>();
  const options = {
    ...CATALOGUE_OPTIONS,
    definitionMaps: (stamp: string, type: Destination['type']) =>
      definitions.get(stamp)?.spec.mappings?.[type] !== undefined,
  };
  return {
    async page(rows) {
      const messages: DeliveryMessage[] = [];
      const skips: LedgerEntry[] = [];
      const events = rows.map(storedEventFromRow);
      for (const stamp of new Set(events.flatMap((e) => e.definition_version ?? [])))
        if (!definitions.has(stamp)) definitions.set(stamp, await input.definition?.(stamp));
      for (const event of events) {
        const d = decideOne(input.destination, event, options);
        if (d.action === 'send')
          messages.push(deliveryMessage(event, input.destination.id, true, input.force === true));
        else skips.push(skippedEntry(event, input.destination.id, d.reason, now(), true));
      }
      await Promise.all([
        messages.length > 0 ? input.publish(messages) : undefined,
        skips.length > 0 ? input.writeLedger(skips) : undefined,
      ]);
      return { republished: messages.length, skipped: skips.length };
    },
  };
}
