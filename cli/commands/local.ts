/**
 * `eventbus local token --as <workload>`: prints a bearer token the local emulators accept as a
 * workload's service account (`eventbus-<workload>@<project>.iam.gserviceaccount.com`) or any
 * member, for trying by hand what a workload may do (docs/permissions.md). Only the token goes
 * to stdout, so `TOKEN=$(npx eventbus local token --as studio)` works.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { DATA_DIR_OPTION } from '../environment.ts';
import { CliError } from '../output.ts';

interface TokenOptions {
  readonly as: string;
  readonly dataDir?: string;
  readonly ttl: string;
}

export function register(program: Command): void {
  const local = program.command('local').description('The local environment: tokens the emulators accept');
  local
    .command('token')
    .description("Print a bearer token the local emulators accept as a workload's service account")
    .requiredOption(
      '--as <workload|member>',
      'gateway, store, forward, schedule, studio, or user:…/serviceAccount:…',
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
      const ttl = Number(options.ttl);
      if (!Number.isInteger(ttl) || ttl < 1)
        throw new CliError('--ttl: expected a positive number of seconds');
      const [{ localToken }, { settingsPath }, { REPO_ROOT }] = await Promise.all([
        import('../../local/access-file.ts'),
        import('../../local/services.ts'),
        import('../../local/settings-file.ts'),
      ]);
      const dir = resolve(options.dataDir ?? join(REPO_ROOT, '.data'));
      const settings = settingsPath(dir);
      if (!existsSync(settings))
        throw new CliError(`${dir} holds no local environment: start one (npm start) or pass its --data-dir`);
      const project = (JSON.parse(readFileSync(settings, 'utf8')) as { project: string }).project;
      try {
        process.stdout.write(`${localToken(dir, options.as, project, ttl)}\n`);
      } catch (err) {
        throw new CliError((err as Error).message);
      }
    });
}
