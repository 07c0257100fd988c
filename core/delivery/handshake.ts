/**
 * The forward step of the CloudEvents webhook handshake (core/platforms/webhook/handshake.ts
 * says what is asked and how answers are read and kept): before a delivery is sent, whether its
 * endpoint allowed our origin, asked once through the sender every delivery uses (the egress gate).
 */
import type { Destination } from '../../schemas/settings.ts';
import { andThen, type MaybePromise } from '../maybe-async.ts';
import type { InboundResponse, OutboundRequest } from '../platforms/driver.ts';
import {
  HANDSHAKE_HEADERS,
  type HandshakeAnswer,
  type Handshakes,
  handshakeRequest,
  REFUSAL_KEPT_MS,
  readHandshake,
} from '../platforms/webhook/handshake.ts';

export type { Handshakes };

/** What the handshake needs of the forward function: its answers, its name, its sender, its clock. */
export interface HandshakeDeps {
  readonly handshakes?: Handshakes;
  readonly environment?: string;
  readonly send: (request: OutboundRequest, timeoutMs: number) => Promise<InboundResponse>;
  readonly now: () => Date;
}

/**
 * Why a delivery to `destination` may not be sent yet, or undefined when it may: a destination
 * without a handshake (not CloudEvents), or an endpoint that allowed our origin. The handshake
 * goes out through `deps.send` (the egress gate) once per endpoint; synchronous once answered.
 */
/** Why no endpoint answered: a network error or timeout (in words), or the egress gate's refusal. */
type Unasked = string | { readonly gate: string };

export function handshakeRefusal(
  destination: Readonly<Destination>,
  deps: HandshakeDeps,
  timeoutMs: number,
): MaybePromise<string | undefined> {
  const { handshakes } = deps;
  const request = handshakes && handshakeRequest(destination, deps.environment);
  if (!handshakes || !request) return undefined;
  const origin = request.headers[HANDSHAKE_HEADERS.origin] ?? '';
  const ask = (): Promise<HandshakeAnswer | Unasked> => {
    let sent: Promise<InboundResponse>;
    try {
      sent = deps.send(request, timeoutMs);
    } catch (err) {
      sent = Promise.reject(err);
    }
    return sent.then(
      (response) => {
        // The gate refused the URL: no endpoint answered; the delivery's own call is refused the same way.
        if (response.kind === 'refused') return { gate: response.reason };
        return (
          readHandshake(response, origin) ??
          (response.kind === 'network_error' ? response.message : 'no answer')
        );
      },
      (err: unknown) => (err as Error).message,
    );
  };
  const where = `not sent: the CloudEvents handshake with ${request.redactedUrl}`;
  return andThen(
    handshakes.answer(request.url, () => deps.now().getTime(), ask),
    (answer) => {
      // Not kept: the gate's verdict is the delivery's to record (a permanent `rejected` row).
      if (typeof answer === 'object' && 'gate' in answer) return undefined;
      if (typeof answer === 'string')
        return `${where} got no answer (${answer}); asked again at the next attempt`;
      if (answer.allowed) return undefined;
      return `${where} was refused (${answer.reason}); asked again ${REFUSAL_KEPT_MS / 1000} s after the refusal`;
    },
  );
}
