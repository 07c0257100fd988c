/**
 * A function registered with the functions framework, served as a plain Cloud Run service: how
 * `store` and `forward` run when their billing is instance-based (`cost.billing`,
 * docs/deploy.md). A Cloud Function (gen2) cannot be given that billing, and Cloud Run's own
 * function deploy builds from source only through `gcloud` (its `buildConfig` field starts no
 * build), so the Pulumi program runs the bundle directly, as it runs the gateway: `node main.js`.
 *
 * The server is the framework's own (`getTestServer` wraps the same `getServer` its CLI uses,
 * on the function the module registered), so a push meets the same request parsing, routing and
 * error answers as under Cloud Functions. What the CLI adds is left to Cloud Run: the request
 * timeout (the revision's), and a crash restarting the instance.
 */
import type { Server } from 'node:http';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { ENV } from '../core/runtime-config.ts';

/**
 * Listens on PORT (Cloud Run sets it; 8080 when unset) and HOST: loopback unless told otherwise,
 * as the gateway does; the Pulumi program sets HOST=0.0.0.0, where Cloud Run sends traffic.
 */
export function serveRegistered(target: string, env: Readonly<Record<string, string | undefined>>): Server {
  const server = getTestServer(target);
  // As the framework's CLI: no idle timeout of its own on incoming connections.
  server.setTimeout(0);
  const host = env[ENV.host] ?? '127.0.0.1';
  server.listen(Number(env[ENV.port] ?? 8080), host, () => {
    // One line, as the gateway writes, so a supervisor or a bench knows it is up.
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : env[ENV.port];
    console.log(
      JSON.stringify({ severity: 'INFO', message: `${target} listening on http://${host}:${port}` }),
    );
  });
  return server;
}
