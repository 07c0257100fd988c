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

export const streaming =
  (
    fn: (req: Obj, write: (res: Obj) => void) => Promise<void> | void,
  ): grpc.handleServerStreamingCall<Obj, Obj> =>
  (call) => {
    Promise.resolve()
      .then(() => fn(call.request, (res) => call.write(res)))
      .then(
        () => call.end(),
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
