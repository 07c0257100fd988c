/**
 * Deliveries in flight in this instance, by the event's identity and destination. A push can
 * arrive again while its first attempt is still sending (a redelivery under load, or a second
 * `deliveries` message for the same stored event): the send-once claim cannot tell yet, because
 * the first attempt settles it only after its send. Without this, both were sent and the ledger
 * had two `delivered` rows. The later push now waits for the one in flight: delivered and
 * recorded → acknowledged without sending; anything else → it goes on as usual (the send-once
 * claim and the send). Per instance only; across instances the send-once claim holds
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

/**
 * The attempts in flight, each with the copies waiting for it. No promise on the common path
 * (no copy): one is made only for a copy that waits.
 */
export class InFlight {
  readonly #attempts = new Map<string, ((delivered: boolean) => void)[]>();

  /** Starts an attempt under this key: true, or false when one is already in flight (`wait` for it). */
  begin(key: string): boolean {
    if (this.#attempts.has(key)) return false;
    this.#attempts.set(key, []);
    return true;
  }

  /** Whether the attempt in flight under this key was delivered and recorded; false at once when none is (start one). */
  wait(key: string): Promise<boolean> {
    const waiters = this.#attempts.get(key);
    if (!waiters) return Promise.resolve(false);
    return new Promise((resolve) => waiters.push(resolve));
  }

  /** Ends the attempt under this key; the copies waiting for it learn whether it was delivered and recorded. */
  end(key: string, delivered: boolean): void {
    const waiters = this.#attempts.get(key);
    this.#attempts.delete(key);
    for (const resolve of waiters ?? []) resolve(delivered);
  }

  /** How many attempts are in flight. */
  get size(): number {
    return this.#attempts.size;
  }
}
