/**
 * `eventbus start` (`npm start`): the local environment under one supervisor. Runs until
 * Ctrl-C / SIGTERM (exit 0) or until a child dies (exit 1, with its last log lines).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_PORTS, type Ports } from '../../local/services.ts';
import type { LocalEnvironment } from '../../local/supervisor.ts';
import { CliError, renderTable } from '../output.ts';

interface StartFlags {
  env: string;
  dataDir?: string;
  portOffset?: number;
  port: Partial<Record<keyof Ports, number>>;
  iam: 'on' | 'off';
}

const PORT_NAMES = Object.keys(DEFAULT_PORTS) as (keyof Ports)[];

function parseInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected an integer 0–65535');
  return n;
}

/** The largest offset that keeps every default port a valid port. */
const MAX_OFFSET = 65535 - Math.max(...Object.values(DEFAULT_PORTS));

function parseOffset(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > MAX_OFFSET)
    throw new InvalidArgumentError(
      `expected an integer 0–${MAX_OFFSET} (the highest default port, ${Math.max(...Object.values(DEFAULT_PORTS))}, plus the offset must stay a port)`,
    );
  return n;
}

function parsePortOverride(value: string, previous: StartFlags['port']): StartFlags['port'] {
  const m = /^([a-z-]+)=(\d+)$/.exec(value);
  const name = m?.[1] as (typeof PORT_NAMES)[number] | undefined;
  if (!m || !name || !PORT_NAMES.includes(name))
    throw new InvalidArgumentError(`expected <service>=<port> with service one of ${PORT_NAMES.join(', ')}`);
  return { ...previous, [name]: parseInteger(m[2] as string) };
}

export function register(program: Command): void {
  program
    .command('start')
    .description(
      'Start the local environment: emulators, gateway and functions on 127.0.0.1, provisioned from the settings',
    )
    .option('--env <name>', 'environment name or settings file (local → environments/local.yaml)', 'local')
    .option('--data-dir <dir>', 'state directory: emulator data, logs, local secrets (default .data)')
    .addOption(
      new Option(
        '--port-offset <n>',
        'add N to every default port (run beside another environment)',
      ).argParser(parseOffset),
    )
    .addOption(
      new Option(
        '--port <service=port>',
        `override one service's port (repeatable; ${PORT_NAMES.join(', ')})`,
      )
        .argParser(parsePortOverride)
        .default({}),
    )
    .addOption(
      new Option(
        '--iam <on|off>',
        "the emulators enforce the IAM grants `pulumi up` gives: each workload calls as its service account (off: every caller is the project's owner)",
      )
        .choices(['on', 'off'])
        .default('on'),
    )
    .addHelpText(
      'after',
      [
        '',
        'Stops cleanly on Ctrl-C or SIGTERM. A function or the gateway that dies is replaced by a new',
        'instance (as in the cloud), up to 5 times a minute; any other death stops everything (exit 1).',
        'A port already in use is refused before anything starts.',
        'Logs: <data-dir>/logs/<service>.log',
        'Where each service listens: <data-dir>/environment.json (sql, replay… read it; same --data-dir).',
      ].join('\n'),
    )
    .action(async (flags: StartFlags) => {
      // The provisioning clients in this process must not probe for a GCE metadata server.
      process.env['METADATA_SERVER_DETECTION'] ??= 'none';
      // Signals are handled from the first moment: Ctrl-C while starting stops what started.
      const starting = new AbortController();
      let env: LocalEnvironment | undefined;
      let signals = 0;
      const onSignal = (signal: NodeJS.Signals) => {
        signals += 1;
        if (signals > 1) {
          process.stderr.write(`${signal} again: exiting now\n`);
          process.exit(130);
        }
        process.stderr.write(`${signal}: stopping…\n`);
        if (env) void env.stop();
        else starting.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      // Loaded here, not at the top: every other command would pay for the supervisor's imports.
      const [{ StartError, startEnvironment }, { SettingsFileError }, { ensureDevToken, fileTokenStore }] =
        await Promise.all([
          import('../../local/supervisor.ts'),
          import('../../local/settings-file.ts'),
          import('../../gateway/token-store.ts'),
        ]);
      try {
        env = await startEnvironment({
          signal: starting.signal,
          env: flags.env,
          ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
          ...(flags.portOffset !== undefined ? { portOffset: flags.portOffset } : {}),
          ports: flags.port,
          iam: flags.iam !== 'off',
        });
      } catch (err) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        if (starting.signal.aborted) {
          process.stderr.write('stopped while starting\n');
          return;
        }
        if (err instanceof SettingsFileError || err instanceof StartError) throw new CliError(err.message);
        throw err;
      }
      process.stdout.write(summary(env));
      // The development token (publish:*, translate:*), created on first run; the gateway reads the same file store.
      const dev = await ensureDevToken(env.dataDir, fileTokenStore(join(env.dataDir, 'tokens.json')));
      process.stdout.write(
        `development token${dev.created ? ' (new)' : ''}: ${dev.token}\n  (also in ${dev.path})\n\n`,
      );
      // The studio's pages take the admin token from this link (kept for the tab, never sent in a URL).
      const studio = env.services.find((s) => s.name === 'studio');
      const admin = join(env.dataDir, 'admin-token');
      if (studio && existsSync(admin))
        process.stdout.write(
          `studio: ${studio.url}/#token=${encodeURIComponent(readFileSync(admin, 'utf8').trim())}\n  create events from a sample; from there: the overview, events, SQL, replays, rules, definitions\n\n`,
        );
      const report = await env.done;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (report.reason === 'died') {
        throw new CliError(
          `${report.service} died (exit code ${report.code ?? 'none'}${report.signal ? `, signal ${report.signal}` : ''}); everything was stopped`,
        );
      }
      process.stderr.write('stopped\n');
    });
}

function summary(env: LocalEnvironment): string {
  const rows = env.services.map((s) => ({ service: s.name, url: s.url, pid: s.pid, log: s.logFile }));
  const p = env.provisioning;
  const lines = [
    '',
    renderTable(rows).trimEnd(),
    '',
    `settings:  ${env.settingsFile ?? '(given)'}`,
    `data dir:  ${env.dataDir}`,
    `logs:      ${env.logDir}`,
  ];
  if (p) {
    lines.push(
      `provisioned: ${p.created.length} created, ${p.updated.length} updated, ${p.unchanged.length} already there`,
    );
    for (const item of [...p.created, ...p.updated]) lines.push(`  ${item}`);
  }
  if (env.createdSecrets.length > 0)
    lines.push(`local secrets created in the Secret Manager emulator: ${env.createdSecrets.join(', ')}`);
  lines.push('', 'Ctrl-C stops everything.', '');
  return lines.join('\n');
}
