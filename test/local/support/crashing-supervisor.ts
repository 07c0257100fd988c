/**
 * Runs startEnvironment with one dummy service (or, given `emulators`, the real Pub/Sub,
 * BigQuery and Cloud Storage emulators, provisioned), prints `pid <n>` for each, then waits to be killed: the
 * guardian test SIGKILLs this process and checks nothing outlives it; the restart test starts
 * again at once on the same data dir.
 */
import { join, resolve } from 'node:path';
import { bigqueryEmulator, pubsubEmulator, storageEmulator } from '../../../local/services.ts';
import { readSettingsFile } from '../../../local/settings-file.ts';
import { startEnvironment } from '../../../local/supervisor.ts';

const root = resolve(import.meta.dirname, '../../..');
const dataDir = process.argv[2] as string;
const withEmulators = process.argv[3] === 'emulators';
const env = await startEnvironment({
  settings: readSettingsFile(join(root, 'environments/local.yaml')),
  dataDir,
  freePorts: true,
  provision: withEmulators,
  log: () => {},
  services: withEmulators
    ? [pubsubEmulator, bigqueryEmulator, storageEmulator]
    : [
        (ctx) => ({
          name: 'orphan-candidate',
          stage: 'app',
          command: ctx.node,
          args: [
            join(root, 'test/local/support/dummy-service.ts'),
            '--port',
            String(ctx.ports.gateway),
            '--mode',
            'ready',
          ],
          env: {},
          port: ctx.ports.gateway,
          url: `http://127.0.0.1:${ctx.ports.gateway}`,
          readiness: { kind: 'http', url: `http://127.0.0.1:${ctx.ports.gateway}/health` },
          logFile: join(ctx.logDir, 'orphan-candidate.log'),
          cwd: ctx.root,
        }),
      ],
});
for (const s of env.services) process.stdout.write(`pid ${s.pid}\n`);
setInterval(() => {}, 1000);
