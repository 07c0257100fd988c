/**
 * Runs startEnvironment with one dummy service (or, given `emulators`, the real Pub/Sub,
 * BigQuery and Cloud Storage emulators, provisioned; given `ignore-term`, the dummy ignores SIGTERM; given `staged`, a dummy app that drains on
 * SIGTERM and the emulator-stage dummy it asks), prints `pid <n>` for each, then waits to be killed: the
 * guardian test SIGKILLs this process and checks nothing outlives it; the restart test starts
 * again at once on the same data dir.
 */
import { join, resolve } from 'node:path';
import type { LocalContext, ServiceSpec } from '../../../local/services.ts';
import { bigqueryEmulator, pubsubEmulator, storageEmulator } from '../../../local/services.ts';
import { readSettingsFile } from '../../../local/settings-file.ts';
import { startEnvironment } from '../../../local/supervisor.ts';

const root = resolve(import.meta.dirname, '../../..');
const dataDir = process.argv[2] as string;
const withEmulators = process.argv[3] === 'emulators';
/** `staged`: an app that drains on SIGTERM (dummy-service's `drain`) and an emulator-stage dummy it asks. */
const staged = process.argv[3] === 'staged';
const dummy =
  (name: string, stage: 'app' | 'emulator', slot: 'gateway' | 'receiver', ...extra: string[]) =>
  (ctx: LocalContext): ServiceSpec => ({
    name,
    stage,
    command: ctx.node,
    args: [join(root, 'test/local/support/dummy-service.ts'), '--port', String(ctx.ports[slot]), ...extra],
    env: {},
    port: ctx.ports[slot],
    url: `http://127.0.0.1:${ctx.ports[slot]}`,
    readiness: { kind: 'http', url: `http://127.0.0.1:${ctx.ports[slot]}/health` },
    logFile: join(ctx.logDir, `${name}.log`),
    cwd: ctx.root,
  });
const env = await startEnvironment({
  settings: readSettingsFile(join(root, 'environments/local.yaml')),
  dataDir,
  freePorts: true,
  provision: withEmulators,
  log: () => {},
  services: withEmulators
    ? [pubsubEmulator, bigqueryEmulator, storageEmulator]
    : staged
      ? [
          dummy('backend', 'emulator', 'receiver', '--mode', 'ready'),
          (ctx) =>
            dummy(
              'drainer',
              'app',
              'gateway',
              '--mode',
              'drain',
              '--peer',
              `http://127.0.0.1:${ctx.ports.receiver}`,
              '--note',
              join(dataDir, 'drainer-note.txt'),
            )(ctx),
        ]
      : [
          dummy(
            'orphan-candidate',
            'app',
            'gateway',
            '--mode',
            process.argv[3] === 'ignore-term' ? 'ignore-term' : 'ready',
          ),
        ],
});
for (const s of env.services) process.stdout.write(`pid ${s.pid}\n`);
setInterval(() => {}, 1000);
