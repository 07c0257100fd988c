/**
 * Wrapping handlers for grpc-js: a unary or server-streaming handler is an async function, and
 * whatever it throws reaches the caller as a gRPC status (errors.ts), never an unhandled rejection.
 */
import type * as grpc from '@grpc/grpc-js';
import { grpcError } from './errors.ts';

export type Obj = Record<string, unknown>;

export const unary =
  (fn: (req: Obj) => Promise<Obj> | Obj): grpc.handleUnaryCall<Obj, Obj> =>
  (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then(
        (res) => callback(null, res),
        (err: unknown) => callback(grpcError(err)),
      );
  };

/**
 * Sends one response of a server stream, waiting while the stream's buffer is full (the caller
 * reads slowly); resolves false once the caller has cancelled, when the handler should stop.
 */
export type Send = (res: Obj) => Promise<boolean>;

function sender(call: grpc.ServerWritableStream<Obj, Obj>): Send {
  return (res) => {
    if (call.cancelled) return Promise.resolve(false);
    if (call.write(res)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (open: boolean) => () => {
        call.off('drain', drained);
        call.off('cancelled', cancelled);
        resolve(open);
      };
      const drained = done(true);
      const cancelled = done(false);
      call.once('drain', drained);
      call.once('cancelled', cancelled);
    });
  };
}

export const streaming =
  (fn: (req: Obj, send: Send) => Promise<void> | void): grpc.handleServerStreamingCall<Obj, Obj> =>
  (call) => {
    Promise.resolve()
      .then(() => fn(call.request, sender(call)))
      .then(
        () => {
          if (!call.cancelled) call.end();
        },
        (err: unknown) => call.emit('error', grpcError(err)),
      );
  };

/** A bytes field as a Buffer (absent: empty). */
export const bytes = (v: unknown): Buffer =>
  Buffer.isBuffer(v)
    ? v
    : v instanceof Uint8Array
      ? Buffer.from(v)
      : Buffer.from(typeof v === 'string' ? v : '');
