/**
 * gRPC and HTTP/1 on one port (the Pub/Sub and BigQuery emulators, docs/google-wire.md §2): each
 * connection's first bytes tell them apart. HTTP/2 prior knowledge (`PRI * HTTP/2.0`) goes to
 * grpc-js through its connection injector, anything else to a `node:http` server.
 */
import type http from 'node:http';
import type net from 'node:net';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0');

export interface ProtocolSplit {
  /** Hands one accepted socket to the protocol its first bytes name. */
  onSocket(socket: net.Socket): void;
  /** Destroys every socket handed over so far that is still open. */
  destroyAll(): void;
}

export function splitProtocols(
  injector: { injectConnection(socket: net.Socket): void },
  httpServer: http.Server,
): ProtocolSplit {
  const sockets = new Set<net.Socket>();
  const onSocket = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const n = Math.min(head.length, HTTP2_PREFACE.length);
      // Wait until the bytes seen so far could still be either protocol only if too short to tell.
      if (n < 3 && head.subarray(0, n).equals(HTTP2_PREFACE.subarray(0, n))) return;
      socket.off('data', onData);
      socket.pause();
      socket.unshift(head);
      if (head.subarray(0, n).equals(HTTP2_PREFACE.subarray(0, n))) {
        // Node's HTTP/2 session reads the socket's handle itself and takes over the bytes
        // buffered by unshift; resuming here would let them flow away as 'data' events.
        injector.injectConnection(socket);
      } else {
        httpServer.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
  };
  return {
    onSocket,
    destroyAll: () => {
      for (const s of sockets) s.destroy();
    },
  };
}
