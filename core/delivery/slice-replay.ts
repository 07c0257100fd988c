/**
 * Re-sending warehouse rows to one destination (a slice replay): each row becomes its stored
 * event again, the decision layer runs again (consent and the definition's mappings still
 * apply), then the platform's age limit and any later withdrawal of consent (backfill.ts);
 * permitted events are published with replay=true and refused ones get a `skipped` ledger row
 * with replay = true. An event stored before the destination went live is a backfill: its
 * message and rows say backfill too. The CLI (`eventbus replay --destination … --from … --to …`)
 * and the scheduler's Replay job (the console's replays) both send their pages through here.
 */
import type { Destination } from '../../schemas/settings.ts';
import { CATALOGUE_OPTIONS, decideOne } from '../decision/decision.ts';
import type { DefinedEvent } from '../definitions/defined-events.ts';
import type { StoredEvent } from '../event.ts';
import { ageRefusal, isBackfill, laterConsentOf } from './backfill.ts';
import { type LedgerEntry, skippedEntry } from './ledger.ts';
import { type DeliveryMessage, deliveryMessage } from './message.ts';
import { storedEventFromRow } from './replay.ts';

/** What one page did: published, refused (and why, by reason), and how many were backfills. */
export interface SlicePage {
  readonly republished: number;
  readonly skipped: number;
  /** Of those published, events stored before the destination went live. */
  readonly backfilled: number;
  /** Refusals by reason, with the age limits' named in full. */
  readonly reasons: Readonly<Record<string, number>>;
}

export interface SliceSender {
  /** Sends one page of rows; what was published and what was refused again. */
  page(rows: readonly Readonly<Record<string, unknown>>[]): Promise<SlicePage>;
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
  /**
   * When the destination went live (backfill.ts wentLiveQuery): events stored before it are
   * backfilled. Absent: none is.
   */
  readonly wentLive?: Date;
  /**
   * The events stored after these events by their persons that carry consent (backfill.ts
   * laterConsentQuery): the newest one's consent must permit the destination too. Absent: the
   * consent as collected decides alone.
   */
  readonly laterConsent?: (events: readonly StoredEvent[]) => Promise<readonly StoredEvent[]>;
}): SliceSender {
  const now = input.now ?? (() => new Date());
  // One read per definition version for the whole replay.
  const definitions = new Map<string, DefinedEvent | undefined>();
  const options = {
    ...CATALOGUE_OPTIONS,
    definitionMaps: (stamp: string, type: Destination['type']) =>
      definitions.get(stamp)?.spec.mappings?.[type] !== undefined,
  };
  /** Why the event is not sent now: the decision as collected, the age limit, a later withdrawal. */
  const refusal = (event: StoredEvent, later: readonly StoredEvent[], at: Date): string | undefined => {
    const d = decideOne(input.destination, event, options);
    if (d.action !== 'send') return d.reason;
    const old = ageRefusal(input.destination, event, at);
    if (old !== undefined) return old;
    const consent = laterConsentOf(event, later);
    if (consent === undefined) return undefined;
    const now = decideOne(input.destination, { ...event, consent }, options);
    return now.action === 'send' ? undefined : `consent withdrawn after collection: ${now.reason}`;
  };
  return {
    async page(rows) {
      const messages: DeliveryMessage[] = [];
      const skips: LedgerEntry[] = [];
      const events = rows.map(storedEventFromRow);
      for (const stamp of new Set(events.flatMap((e) => e.definition_version ?? [])))
        if (!definitions.has(stamp)) definitions.set(stamp, await input.definition?.(stamp));
      const later = input.laterConsent ? await input.laterConsent(events) : [];
      const reasons: Record<string, number> = {};
      let backfilled = 0;
      const at = now();
      for (const event of events) {
        const backfill = isBackfill(event, input.wentLive);
        const reason = refusal(event, later, at);
        if (reason === undefined) {
          messages.push(
            deliveryMessage(event, input.destination.id, true, input.force === true, undefined, backfill),
          );
          if (backfill) backfilled++;
        } else {
          skips.push(skippedEntry(event, input.destination.id, reason, at, true, backfill));
          // The summary counts by reason; an age refusal's own event_time is left out of it.
          const key = reason.replace(/ \(event_time [^)]*\)/, '');
          reasons[key] = (reasons[key] ?? 0) + 1;
        }
      }
      await Promise.all([
        messages.length > 0 ? input.publish(messages) : undefined,
        skips.length > 0 ? input.writeLedger(skips) : undefined,
      ]);
      return { republished: messages.length, skipped: skips.length, backfilled, reasons };
    },
  };
}
