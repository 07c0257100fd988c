/**
 * `eventbus local token --as <workload>`: prints a bearer token the local emulators accept as a
 * workload's service account (`eventbus-<workload>@<project>.iam.gserviceaccount.com`) or any
 * member, for trying by hand what a workload may do (docs/permissions.md). Only the token goes
 * to stdout, so `TOKEN=$(npx eventbus local token --as studio)` works.
 * `eventbus local credentials --as <workload|member>`: writes a credentials file Google's clients
 * load through `GOOGLE_APPLICATION_CREDENTIALS` to call as that member (emulators/common/local-sts.ts),
 * and prints its path.
 * `eventbus local key --as <workload|serviceAccount:…>`: writes a service-account key file for that
 * service account, its public half published to the emulators (emulators/common/iam-keys.ts): a
 * client given it calls as the service account and signs Cloud Storage URLs and POST policies.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { DATA_DIR_OPTION } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';

/** The project of the local environment in `dir` (its settings file), or a CliError. */
async function localProject(dir: string): Promise<string> {
  const { settingsPath } = await import('../../local/services.ts');
  const settings = settingsPath(dir);
  if (!existsSync(settings))
    throw new CliError(`${dir} holds no local environment: start one (npm start) or pass its --data-dir`);
  return (JSON.parse(readFileSync(settings, 'utf8')) as { project: string }).project;
}

interface TokenOptions {
  readonly as: string;
  readonly dataDir?: string;
  readonly ttl: string;
}

/** `--ttl`: a positive whole number of seconds. */
function ttlOf(raw: string): number {
  const ttl = Number(raw);
  if (!Number.isInteger(ttl) || ttl < 1) throw new CliError('--ttl: expected a positive number of seconds');
  return ttl;
}

export function register(program: Command): void {
  const local = program
    .command('local')
    .description('The local environment: tokens the emulators accept, secret values');
  local
    .command('token')
    .description("Print a bearer token the local emulators accept as a workload's service account")
    .requiredOption(
      '--as <workload|member>',
      "gateway, store, forward, schedule, studio, owner (the project's owner), or user:…/serviceAccount:…",
    )
    .option(...DATA_DIR_OPTION)
    .option('--ttl <seconds>', 'how long the token is valid', '3600')
    .addHelpText(
      'after',
      [
        '',
        'Example:',
        '  TOKEN=$(npx eventbus local token --as studio)',
        '  curl -H "Authorization: Bearer $TOKEN" -X POST \\',
        '    http://127.0.0.1:8085/v1/projects/local-project/topics/events:publish -d \'{"messages":[{"data":""}]}\'',
        '  → 403 PERMISSION_DENIED: the studio may not publish events',
      ].join('\n'),
    )
    .action(async (options: TokenOptions) => {
      const ttl = ttlOf(options.ttl);
      const [{ localToken }, { REPO_ROOT }] = await Promise.all([
        import('../../local/access-file.ts'),
        import('../../local/settings-file.ts'),
      ]);
      const dir = resolve(options.dataDir ?? join(REPO_ROOT, '.data'));
      const project = await localProject(dir);
      try {
        process.stdout.write(`${localToken(dir, options.as, project, ttl)}\n`);
      } catch (err) {
        throw new CliError((err as Error).message);
      }
    });
  local
    .command('credentials')
    .description(
      "Write a credentials file Google's clients load (GOOGLE_APPLICATION_CREDENTIALS) to call the local emulators as a workload or member",
    )
    .requiredOption(
      '--as <workload|member>',
      'gateway, store, forward, schedule, studio, or user:…/serviceAccount:…',
    )
    .option('--out <file>', 'where to write it (default <data-dir>/credentials/<--as value>.json)')
    .option(...DATA_DIR_OPTION)
    .option('--ttl <seconds>', 'how long the file is valid', String(7 * 24 * 3600))
    .addHelpText(
      'after',
      [
        '',
        'Example:',
        '  export GOOGLE_APPLICATION_CREDENTIALS=$(npx eventbus local credentials --as user:ana@example.com)',
        '  # then: new BigQuery({ useAuthWithCustomEndpoint: true }) calls BIGQUERY_EMULATOR_HOST as ana',
      ].join('\n'),
    )
    .action(async (options: TokenOptions & { out?: string }) => {
      const ttl = ttlOf(options.ttl);
      const [{ writeLocalCredentials }, { readEnvironmentRecord }, { REPO_ROOT }] = await Promise.all([
        import('../../local/access-file.ts'),
        import('../../local/environment-record.ts'),
        import('../../local/settings-file.ts'),
      ]);
      const dir = resolve(options.dataDir ?? join(REPO_ROOT, '.data'));
      const found = readEnvironmentRecord(dir);
      if (found.state !== 'running')
        throw new CliError(`no running environment in ${dir}: start one (npm start) or pass its --data-dir`);
      const { project, bigqueryUrl } = found.record;
      try {
        const safe = options.as.replace(/[^A-Za-z0-9@._-]+/g, '_');
        const out = resolve(options.out ?? join(dir, 'credentials', `${safe}.json`));
        writeLocalCredentials(dir, options.as, project, out, `${bigqueryUrl}/v1/token`, ttl);
        process.stdout.write(`${out}\n`);
      } catch (err) {
        throw new CliError((err as Error).message);
      }
    });
  local
    .command('key')
    .description(
      'Write a service-account key file for a workload or service account, its public half published to the local emulators',
    )
    .requiredOption(
      '--as <workload|member>',
      'gateway, store, forward, schedule, studio, or serviceAccount:…',
    )
    .option('--out <file>', 'where to write it (default <data-dir>/credentials/<--as value>.key.json)')
    .option(...DATA_DIR_OPTION)
    .addHelpText(
      'after',
      [
        '',
        'Example:',
        '  export GOOGLE_APPLICATION_CREDENTIALS=$(npx eventbus local key --as store)',
        '  # then: new Storage({ useAuthWithCustomEndpoint: true }) calls as the store workload and signs URLs',
      ].join('\n'),
    )
    .action(async (options: { as: string; out?: string; dataDir?: string }) => {
      const [{ writeServiceAccountKey }, { REPO_ROOT }] = await Promise.all([
        import('../../local/access-file.ts'),
        import('../../local/settings-file.ts'),
      ]);
      const dir = resolve(options.dataDir ?? join(REPO_ROOT, '.data'));
      const project = await localProject(dir);
      try {
        if (!options.as.startsWith('serviceAccount:') && options.as.includes(':'))
          throw new Error(`--as: only a service account has keys, not ${options.as}`);
        const safe = options.as.replace(/[^A-Za-z0-9@._-]+/g, '_');
        const out = resolve(options.out ?? join(dir, 'credentials', `${safe}.key.json`));
        writeServiceAccountKey(dir, options.as, project, out);
        process.stdout.write(`${out}\n`);
      } catch (err) {
        throw new CliError((err as Error).message);
      }
    });
  local
    .command('secret')
    .description(
      "Store a secret's value in the running environment's Secret Manager emulator (read from standard input)",
    )
    .argument('<name>', 'the secret, e.g. eventbus-translator-stripe')
    .option(...DATA_DIR_OPTION)
    .addHelpText(
      'after',
      '\nExample:\n  printf %s "$STRIPE_SIGNING_SECRET" | npm run cli -- local secret eventbus-translator-stripe',
    )
    .action(async (name: string, options: { dataDir?: string }, cmd: Command) => {
      const [{ readEnvironmentRecord }, { putSecret }, { REPO_ROOT }] = await Promise.all([
        import('../../local/environment-record.ts'),
        import('../../local/local-secrets.ts'),
        import('../../local/settings-file.ts'),
      ]);
      const dir = resolve(options.dataDir ?? join(REPO_ROOT, '.data'));
      const found = readEnvironmentRecord(dir);
      const url = found.state === 'running' ? found.record.secretManagerUrl : undefined;
      if (!url || found.state !== 'running')
        throw new CliError(
          `no running environment with a Secret Manager emulator in ${dir}: start one (npm start)`,
        );
      const value = readFileSync(0, 'utf8').replace(/\r?\n$/, '');
      if (value === '') throw new CliError('no value on standard input');
      try {
        await putSecret(url, found.record.project, name, value);
      } catch (err) {
        throw new CliError((err as Error).message);
      }
      writerOf(cmd)(`secret ${name} stored in the local Secret Manager emulator\n`);
    });
}
