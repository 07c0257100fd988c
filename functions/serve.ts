/**
 * A function registered with the functions framework, served as a plain Cloud Run service: how
 * `store` and `forward` run when their billing is instance-based (`cost.billing`,
 * docs/deploy.md). A Cloud Function (gen2) cannot be given that billing, and Cloud Run's own
 * function deploy builds from source only through `gcloud` (its `buildConfig` field starts no
 * build), so the Pulumi program runs the bundle directly, as it runs the gateway: `node main.js`.
 *
 * Why the framework's `@beta` testing helper: @google-cloud/functions-framework 5.x exports as
 * stable only the registration (`http`, `cloudEvent`) and the types; its server (`getServer`) and
 * its CLI's `main` are internal (not in the package's `exports`), and the CLI
 * (`functions-framework --target`) loads the function from a source folder and its package.json,
 * which the single-file bundle is not. `getTestServer(target)` is the one public way to get the
 * server the CLI builds, for the function the module registered, so a push meets the same request
 * parsing, routing and error answers as under Cloud Functions. test/functions/serve.test.ts pins
 * what this relies on (routing by target, the body parsers and their limit, the crash answer, no
 * listening of its own), so a framework upgrade that changes it fails there first. What the CLI
 * adds is left to Cloud Run: the request timeout (the revision's), and a crash restarting the
 * instance.
 */
import type { Server } from 'node:http';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import type { ListenAddress } from '../core/runtime-config.ts';

/**
 * Serves the registered `target` at `listen` (the function's configuration: PORT, 8080 when
 * unset, and HOST, loopback unless told otherwise, as the gateway does; the Pulumi program sets
 * HOST=0.0.0.0, where Cloud Run sends traffic).
 */
export function serveRegistered(target: string, listen: ListenAddress): Server {
  const server = getTestServer(target);
  // As the framework's CLI: no idle timeout of its own on incoming connections.
  server.setTimeout(0);
  server.listen(listen.port, listen.host, () => {
    // One line, as the gateway writes, so a supervisor or a bench knows it is up.
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : listen.port;
    console.log(
      JSON.stringify({ severity: 'INFO', message: `${target} listening on http://${listen.host}:${port}` }),
    );
  });
  return server;
}
