/**
 * Deliveries in flight in this instance, by the event's identity and destination. A push can
 * arrive again while its first attempt is still sending (a redelivery under load, or a second
 * `deliveries` message for the same stored event): the ledger cannot tell yet, because the first
 * attempt's row is written only after its send. Without this, both were sent and the ledger had
 * two `delivered` rows. The later push now waits for the one in flight: delivered and recorded
 * → acknowledged without sending; anything else → it goes on as usual (the ledger check and
 * the send). Per instance only; across instances the ledger check on redeliveries still holds
 * (docs/delivery.md). Pure: the outcomes are promises the caller settles.
 */
import { DELIVERY_ATTRIBUTES, type PushedMessage } from './message.ts';

/**
 * The key of a push's delivery: destination, event id and payload digest, from the message's
 * attributes. Undefined for a person's replay (always sent) and for a message without an event
 * id or destination (nothing to tell copies apart by).
 */
export function inFlightKey(push: PushedMessage): string | undefined {
  const a = push.attributes;
  if (a[DELIVERY_ATTRIBUTES.replay] === 'true') return undefined;
  const destination = a[DELIVERY_ATTRIBUTES.destination];
  const eventId = a[DELIVERY_ATTRIBUTES.eventId];
  if (!destination || !eventId) return undefined;
  return `${destination}\n${eventId}\n${a[DELIVERY_ATTRIBUTES.payloadDigest] ?? ''}`;
}

/** The attempts in flight, each as the promise of its outcome (true: delivered and recorded). */
export class InFlight {
  readonly #attempts = new Map<string, Promise<boolean>>();

  /** The outcome of the attempt in flight under this key; undefined when there is none. */
  pending(key: string): Promise<boolean> | undefined {
    return this.#attempts.get(key);
  }

  /** Records an attempt in flight until its outcome settles (a rejection counts as not delivered). */
  track(key: string, outcome: Promise<boolean>): void {
    this.#attempts.set(key, outcome);
    const settled = () => {
      if (this.#attempts.get(key) === outcome) this.#attempts.delete(key);
    };
    outcome.then(settled, settled);
  }

  /** How many attempts are in flight (tests, and a bound check). */
  get size(): number {
    return this.#attempts.size;
  }
}
