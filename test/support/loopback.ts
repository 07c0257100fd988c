/** A test server on an ephemeral loopback port, and its teardown. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1:0 and resolves with the server's base URL (`http://127.0.0.1:<port>`). */
export async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server and every connection still open to it (keep-alive ones included). */
export function closeServer(server: Server): void {
  server.closeAllConnections();
  server.close();
}
