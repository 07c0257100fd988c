/**
 * The message shapes the Pub/Sub emulator's engine, codec and wire encoders share, in a module
 * of their own so that none of those three imports another for a type (no import circle).
 */

/** A message as the engine keeps it: ids and publish time assigned, ready to deliver. */
export interface StoredMessage {
  readonly id: number;
  readonly publishTime: number;
  readonly data: Buffer;
  readonly attributes: Readonly<Record<string, string>>;
  readonly orderingKey: string;
  /** Approximate bytes, for flow control. */
  readonly size: number;
  /**
   * The encoded PubsubMessage (ids and publish time included), when the message was published
   * over gRPC: StreamingPull copies it into responses instead of encoding every field again.
   */
  readonly pb?: Buffer | undefined;
}

export interface PublishInput {
  readonly data: Buffer;
  readonly attributes: Readonly<Record<string, string>>;
  readonly orderingKey: string;
  /**
   * From the gRPC decoder: the request the message was read from, its bytes there
   * ([start, end)), and whether they hold only data, attributes and ordering_key (then they
   * are delivered as received, wire.ts ownPubsubMessage). `data` is then a view into `src`,
   * which codec.ts storedMessage copies out. Absent for REST publishes.
   */
  readonly src?: Buffer;
  readonly start?: number;
  readonly end?: number;
  readonly plain?: boolean;
}

export interface Delivery {
  readonly ackId: string;
  readonly message: StoredMessage;
  /** 0 unless the subscription has a dead-letter policy (as Google does for pulls). */
  readonly deliveryAttempt: number;
  /** The real attempt count, always set (push bodies carry it). */
  readonly attempt: number;
}
