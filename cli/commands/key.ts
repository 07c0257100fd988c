/**
 * `eventbus key create|list|revoke`: write keys for browsers. Publish-only, bound to origins,
 * passed as `?key=` or `X-Write-Key` (sendBeacon cannot set Authorization).
 */
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { type CredentialRecord, issueKey, revoke } from '../../functions/core/credentials.ts';
import { environmentFile, readSettingsFile } from '../../local/settings-file.ts';
import { CliError, formatOption, type OutputFormat, printJson, renderRows } from '../output.ts';
import { describeRecord, storeFor } from './token.ts';

interface Common {
  env: string;
  dataDir?: string;
  store?: string;
}

export function register(program: Command): void {
  const key = program.command('key').description('Write keys for browser producers (?key= or X-Write-Key)');
  key
    .command('create')
    .description('Create a write key for one or more origins and print it')
    .requiredOption('--origin <origin...>', 'allowed origin(s), e.g. https://shop.example')
    .option('--description <text>', 'what the key is for')
    .option('--rate <n>', 'requests per second for this key (default: settings.tokens)', Number)
    .option('--env <name>', 'environment name or settings file', 'local')
    .option('--data-dir <dir>', 'local state directory (default .data)')
    .option(
      '--store <spec>',
      'token store: file:<path> or secret:<name> (default: EVENTBUS_TOKEN_STORE, else per environment)',
    )
    .addHelpText(
      'after',
      '\nExample:\n  eventbus key create --origin https://shop.example --description "storefront"',
    )
    .action(async (o: Common & { origin: string[]; description?: string; rate?: number }) => {
      const store = storeFor(
        o.env,
        o.store ? { ...process.env, EVENTBUS_TOKEN_STORE: o.store } : process.env,
        o.dataDir,
      );
      const cors = readSettingsFile(environmentFile(o.env)).producers?.origins ?? [];
      let issued: { secret: string; record: CredentialRecord };
      try {
        issued = await store.update((set) => {
          const r = issueKey(
            set,
            {
              origins: o.origin,
              ...(o.description ? { description: o.description } : {}),
              ...(o.rate ? { rateLimitPerSecond: o.rate } : {}),
            },
            randomBytes,
            new Date(),
          );
          return { set: r.set, result: { secret: r.secret, record: r.record } };
        });
      } catch (err) {
        throw new CliError((err as Error).message);
      }
      const missing = o.origin.filter((x) => !cors.includes(x));
      process.stdout.write(`${issued.secret}\n\nWrite key ${issued.record.id} created in ${store.where}.\n`);
      if (missing.length > 0) {
        process.stdout.write(
          `Note: add ${missing.join(', ')} to producers.origins in the settings, or browsers will fail the CORS preflight.\n`,
        );
      }
    });
  key
    .command('list')
    .description('List write keys (ids, origins, state)')
    .option('--env <name>', 'environment name or settings file', 'local')
    .option('--data-dir <dir>', 'local state directory (default .data)')
    .option(
      '--store <spec>',
      'token store: file:<path> or secret:<name> (default: EVENTBUS_TOKEN_STORE, else per environment)',
    )
    .addOption(formatOption(['table', 'json', 'csv']))
    .action(async (o: Common & { format: OutputFormat }) => {
      const set = await storeFor(
        o.env,
        o.store ? { ...process.env, EVENTBUS_TOKEN_STORE: o.store } : process.env,
        o.dataDir,
      ).read();
      const rows = set.keys.map((r) => describeRecord(r, Date.now()));
      if (o.format === 'json') printJson(rows);
      else process.stdout.write(rows.length === 0 ? 'no write keys\n' : renderRows(rows, o.format));
    });
  key
    .command('revoke')
    .description('Revoke a write key by id')
    .argument('<id>', 'key id, as `key list` shows it')
    .option('--env <name>', 'environment name or settings file', 'local')
    .option('--data-dir <dir>', 'local state directory (default .data)')
    .option(
      '--store <spec>',
      'token store: file:<path> or secret:<name> (default: EVENTBUS_TOKEN_STORE, else per environment)',
    )
    .action(async (id: string, o: Common) => {
      const store = storeFor(
        o.env,
        o.store ? { ...process.env, EVENTBUS_TOKEN_STORE: o.store } : process.env,
        o.dataDir,
      );
      try {
        await store.update((set) => {
          if (!set.keys.some((k) => k.id === id)) throw new Error(`no write key with id ${id}`);
          return { set: revoke(set, id, new Date()), result: undefined };
        });
      } catch (err) {
        throw new CliError((err as Error).message);
      }
      process.stdout.write(`write key ${id} revoked\n`);
    });
}
