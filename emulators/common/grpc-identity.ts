/**
 * Who a gRPC call is, on an emulator with member ports (iam-ports.ts): a server interceptor that
 * writes into each call's metadata the local port of the connection it came in on, replacing any
 * value the client sent, which `IdentityListeners.memberOfCall` reads. Kept apart from
 * iam-enforce.ts so that the emulators without a gRPC surface do not load grpc-js.
 */
import * as grpc from '@grpc/grpc-js';
import { LOCAL_PORT_METADATA } from './iam-ports.ts';

export const localPortInterceptor: grpc.ServerInterceptor = (_method, call) =>
  new grpc.ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, onward) => {
          metadata.remove(LOCAL_PORT_METADATA);
          const port = call.getConnectionInfo().localPort;
          if (port !== undefined) metadata.set(LOCAL_PORT_METADATA, String(port));
          onward(metadata);
        },
      }),
  });
