#!/usr/bin/env node
/**
 * CLI entry point: `npm run emulator:secret-manager -- --port 8087 --data-dir .data/secret-manager`,
 * with `--project-number <id>=<number>` (repeatable), and `--iam <access-file>` and
 * `--identity <member>=<port>` to enforce IAM (README, "Access control"). Prints exactly one line
 * when ready; SIGINT/SIGTERM close cleanly and exit 0.
 */
import { emulatorCommand, emulatorStart, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { InvalidArgumentError } from 'commander';
import { startSecretManagerEmulator } from './server.ts';

function projectNumberOption(value: string, previous: [string, string][] = []): [string, string][] {
  const m = /^([A-Za-z][A-Za-z0-9_.:-]{0,99})=(\d{1,19})$/.exec(value);
  if (!m)
    throw new InvalidArgumentError('must be <project id>=<project number>, e.g. my-project=123456789012');
  return [...previous, [m[1] as string, m[2] as string]];
}

const program = emulatorCommand({
  name: 'secret-manager-emulator',
  description: 'Local Secret Manager emulator: the REST API v1 on one port, state kept in the data directory',
  port: 8087,
  dataDir: '.data/secret-manager',
  keeps: 'secrets and their versions',
  fsync: "'always' (sync each batch of records) or 'none'",
})
  .option(
    '--project-number <id=number>',
    "a project's number, as answers and IAM conditions name it (repeatable)",
    projectNumberOption,
  )
  .parse();

const { projectNumber } = program.opts<{ projectNumber?: [string, string][] }>();
await serveUntilSignalled('secret manager emulator', () =>
  startSecretManagerEmulator({ ...emulatorStart(program), projectNumbers: new Map(projectNumber ?? []) }),
);
