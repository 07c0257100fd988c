/**
 * Copies of an event the store path may have stored already: a late redelivery asks the
 * warehouse, and every event claims its identity (adapters/identity-claims.ts), so a producer's
 * copy takes the first one's time and row. How store saw each identity (its sighting) rides to
 * the fan-out beside the event.
 */

import type { ServerField, StoredEvent } from '../event.ts';
import type { InsertRow } from '../warehouse/rows.ts';
import { DEAD_LETTER_SOURCE, type PubSubMessage } from './message.ts';

/**
 * How long BigQuery (and the emulator) are counted on to fold a repeated insertId. Past it, a
 * redelivery asks the warehouse whether its row is there before writing it again.
 */
export const INSERT_ID_WINDOW_MS = 55_000;

/** What a late redelivery asks the warehouse: is the row of this identity stored? */
export interface StoredQuestion {
  readonly event_id: string;
  readonly event_time: string;
  readonly payload_digest: string;
}

/**
 * Answers a StoredQuestion. Rejects when it cannot tell (the query failed or took too long):
 * storeMessages then fails the push, so Pub/Sub brings it back later. "Not stored" is never a
 * guess, since it means writing and fanning out again.
 */
export type AlreadyStored = (question: StoredQuestion) => Promise<boolean>;

/**
 * The first sighting of an identity whose time the server stamped (adapters/identity-claims.ts):
 * the first copy claims it with its event_time; a later copy learns the first one's time and
 * message. Only such events need it: a producer's own event_time makes every copy's row alike.
 */
export interface IdentityClaim {
  readonly digest: string;
  readonly event_time: string;
  readonly message_id: string;
}
export type ClaimAnswer =
  | { readonly first: true }
  | {
      readonly first: false;
      /** The first copy's event_time and message, as it claimed them. */
      readonly event_time: string;
      readonly message_id: string;
      /** When the first copy claimed it (epoch ms). */
      readonly claimed_at: number;
    };
export type ClaimIdentity = (claim: IdentityClaim) => Promise<ClaimAnswer>;

/**
 * How long a copy waits for the first copy's row: while the first one is younger and not stored,
 * the copy's push fails and comes back later (the first is in flight, or retrying). Past it the
 * copy is written under the first one's time (the same row, so it still folds) and fanned out.
 */
export const COPY_SETTLE_MS = 10 * 60_000;

/** Why storeMessages failed a push on purpose (the handler logs it as a warning). */
export class NotYet extends Error {}

/**
 * A message that may have been stored already by an earlier push of the same content, beyond the
 * insertId window: a redelivery (attempt > 1) published more than a window ago, or a dead letter.
 * A redelivery that an older release may have stored under its own digest is asked at once.
 */
export function lateCopy(message: PubSubMessage, now: number, legacy: boolean): boolean {
  if (message.attributes[DEAD_LETTER_SOURCE] !== undefined) return true;
  if (message.deliveryAttempt <= 1) return false;
  return legacy || now - Date.parse(message.publishTime) > INSERT_ID_WINDOW_MS;
}

export type EventEntry = { row: InsertRow; event: StoredEvent; message: PubSubMessage };
export type Parsed = EventEntry & { serverFields?: readonly ServerField[]; legacyDigest?: string };
/**
 * How store saw each event it fanned out (core/claims/send-once.ts): the first fan-out of an
 * identity holds the send-once claim for its destinations; any other (a copy, a redelivery) does
 * not. Kept beside the events, not in them: the fan-out reads it (core/delivery/fan-out.ts).
 */
const sightings = new WeakMap<StoredEvent, Sighting>();

/** How store saw an event's identity when it fanned it out. */
export interface Sighting {
  /**
   * This fan-out is the identity's first: its messages hold the send-once claim. True only for a
   * push that wrote the row now (no earlier push wrote it, so none fanned it out).
   */
  readonly first: boolean;
  /**
   * When this push saw the identity (epoch ms). Another fan-out's messages were published at most
   * one store push after it: the send-once claim's horizon counts from here.
   */
  readonly at: number;
  /**
   * This push's message holds the identity (its first sighting, or that message back after a
   * crash, or its dead letter): false for a producer's copy, a new message of an identity another
   * message claimed. Only the holder writes the `skipped` rows, so copies add none. Absent: held.
   */
  readonly owner?: boolean;
  /**
   * For the holder's message back with its row stored (a crash after the write, or its dead
   * letter): an earlier attempt may have written its `skipped` rows, and not before this time
   * (epoch ms: when the identity was claimed, else when the message was published). The fan-out
   * asks the ledger for them before writing (core/delivery/fan-out.ts). Absent: no earlier fan-out.
   */
  readonly since?: number;
}

/** How store saw this stored event's identity, when it claimed it. */
export function sightingOf(event: StoredEvent): Sighting | undefined {
  return sightings.get(event);
}

/** Marks an event with how its identity was seen, and hands it on. */
function seen<E extends EventEntry>(entry: E, first: boolean, at: number, owner = true, since?: number): E {
  sightings.set(entry.event, since === undefined ? { first, at, owner } : { first, at, owner, since });
  return entry;
}

/** The copy's row and event under the first copy's time. */
function withTime(entry: Parsed, time: string): Parsed {
  return {
    ...entry,
    row: { ...entry.row, json: { ...entry.row.json, event_time: time } },
    event: { ...entry.event, event_time: time },
  };
}

/**
 * Sorts late copies and claimed events into what to write and what is stored already (fanned out
 * again: a redelivery's earlier attempt may have stopped before its fan-out; a producer's copy
 * is folded by each destination's send-once claim), counting producers' copies. Rejects with NotYet while a copy's first one is young and not stored yet.
 */
export async function settleCopies(
  late: readonly Parsed[],
  claimed: readonly Parsed[],
  deps: { readonly alreadyStored?: AlreadyStored; readonly claim?: ClaimIdentity },
  now: number,
): Promise<{ write: EventEntry[]; present: EventEntry[]; copies: number }> {
  const write: EventEntry[] = [];
  const present: EventEntry[] = [];
  let copies = 0;
  const ask = deps.alreadyStored;
  const stored = async (e: Parsed): Promise<string | undefined> => {
    if (!ask) return undefined;
    const q = { event_id: e.event.event_id, event_time: e.event.event_time };
    const digests = [e.event.payload_digest as string, ...(e.legacyDigest ? [e.legacyDigest] : [])];
    const found = await Promise.all(digests.map((d) => ask({ ...q, payload_digest: d })));
    return digests[found.indexOf(true)];
  };
  /** Stored under a legacy digest: the fan-out names the row that is there. */
  const named = (e: Parsed, digest: string): EventEntry =>
    digest === e.event.payload_digest ? e : { ...e, event: { ...e.event, payload_digest: digest } };
  const claim = deps.claim as ClaimIdentity;
  await Promise.all([
    ...late.map(async (e) => {
      const digest = await stored(e);
      (digest ? present : write).push(digest ? named(e, digest) : e);
    }),
    ...claimed.map(async (e) => {
      const answer = await claim({
        digest: e.event.payload_digest as string,
        event_time: e.event.event_time,
        message_id: e.message.messageId,
      });
      // The first sighting: written at once, unless it may have been written before (a late copy).
      if (answer.first) {
        const digest = lateCopy(e.message, now, e.legacyDigest !== undefined) ? await stored(e) : undefined;
        if (digest) present.push(seen(named(e, digest), false, now, true, Date.parse(e.message.publishTime)));
        else write.push(seen(e, true, now));
        return;
      }
      // The first copy itself, back (a crash between the write and the acknowledgement, a
      // redelivery), or its dead letter (a new message, the same event): its row may be there
      // already, whatever the attempt says, so the warehouse is asked first.
      if (
        answer.message_id === e.message.messageId ||
        e.message.attributes[DEAD_LETTER_SOURCE] !== undefined
      ) {
        const digest = await stored(e);
        // Not stored: no earlier attempt wrote it, so none fanned it out, and this is the first.
        if (digest) present.push(seen(named(e, digest), false, now, true, answer.claimed_at));
        else write.push(seen(e, true, now));
        return;
      }
      // A producer's copy: one row, the first one's. It is fanned out again, so each destination's
      // send-once claim records it as folded (core/claims/send-once.ts), and sends nothing twice.
      const copy = withTime(e, answer.event_time);
      const digest = await stored(copy);
      if (digest) {
        copies++;
        present.push(seen(named(copy, digest), false, now, false));
      } else if (now - answer.claimed_at < COPY_SETTLE_MS)
        throw new NotYet(
          `event ${e.event.event_id} is a copy of message ${answer.message_id}, whose row is not stored yet: trying again later`,
        );
      else write.push(seen(copy, false, now, false));
    }),
  ]);
  return { write, present, copies };
}
