/**
 * `eventbus token create|list|revoke`: project tokens for producers. The secret is printed once;
 * only its salted hash is stored, in the store the environment uses (EVENTBUS_TOKEN_STORE, else
 * `.data/tokens.json` for the local environment, else the Secret Manager secret of its settings).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Command } from 'commander';
import { openTokenStore, type TokenStore } from '../../functions/adapters/token-store.ts';
import { type CredentialRecord, issueToken, revoke } from '../../functions/core/credentials.ts';
import {
  environmentFile,
  REPO_ROOT,
  readSettingsFile,
  SettingsFileError,
} from '../../local/settings-file.ts';
import { CliError, formatOption, type OutputFormat, printJson, renderRows } from '../output.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The token store an environment uses, as the gateway would open it. */
export function storeFor(envName: string, env: Env = process.env, dataDir?: string): TokenStore {
  let settings: ReturnType<typeof readSettingsFile>;
  try {
    settings = readSettingsFile(environmentFile(envName));
  } catch (err) {
    if (err instanceof SettingsFileError) throw new CliError(err.message);
    throw err;
  }
  const project = env['GOOGLE_CLOUD_PROJECT'] || settings.project;
  const spec =
    env['EVENTBUS_TOKEN_STORE'] ??
    (settings.name === 'local'
      ? `file:${join(dataDir ?? join(REPO_ROOT, '.data'), 'tokens.json')}`
      : `secret:${settings.tokens?.secret ?? 'eventbus-tokens'}`);
  try {
    return openTokenStore(spec, project);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** Parses `--expires`: an ISO date, or a duration like 30d / 12h. */
export function parseExpiry(text: string, now: Date): Date {
  const m = /^(\d+)([dh])$/.exec(text);
  if (m) return new Date(now.getTime() + Number(m[1]) * (m[2] === 'd' ? 86_400_000 : 3_600_000));
  const t = Date.parse(text);
  if (Number.isNaN(t) || t <= now.getTime())
    throw new CliError(`--expires "${text}" must be a future date or like 30d / 12h`);
  return new Date(t);
}

/** The rows `list` prints: never a hash or a salt. */
export function describeRecord(r: CredentialRecord, now: number): Record<string, unknown> {
  const state = r.revoked_at
    ? 'revoked'
    : r.expires_at && Date.parse(r.expires_at) <= now
      ? 'expired'
      : 'active';
  return {
    id: r.id,
    kind: r.kind,
    [r.kind === 'token' ? 'scopes' : 'origins']:
      r.kind === 'token' ? r.scopes.join(' ') : r.origins.join(' '),
    state,
    created_at: r.created_at,
    expires_at: r.expires_at ?? '',
    description: r.description ?? '',
  };
}

interface Common {
  env: string;
  dataDir?: string;
  store?: string;
}

export function register(program: Command): void {
  const token = program
    .command('token')
    .description('Project tokens for producers (Authorization: Bearer …)');
  token
    .command('create')
    .description('Create a token and print it ONCE (only a salted hash is kept)')
    .requiredOption('--scope <scope...>', 'publish:*, publish:<topic or event>, translate:<id>, admin')
    .option('--expires <when>', 'expiry: an ISO date, or a duration like 30d or 12h')
    .option('--description <text>', 'what the token is for')
    .option('--rate <n>', 'requests per second for this token (default: settings.tokens)', Number)
    .option('--env <name>', 'environment name or settings file', 'local')
    .option('--data-dir <dir>', 'local state directory (default .data)')
    .option(
      '--store <spec>',
      'token store: file:<path> or secret:<name> (default: EVENTBUS_TOKEN_STORE, else per environment)',
    )
    .addHelpText(
      'after',
      '\nExample:\n  eventbus token create --scope publish:* --expires 90d --description "backend"',
    )
    .action(
      async (o: Common & { scope: string[]; expires?: string; description?: string; rate?: number }) => {
        const store = storeFor(
          o.env,
          o.store ? { ...process.env, EVENTBUS_TOKEN_STORE: o.store } : process.env,
          o.dataDir,
        );
        const now = new Date();
        const settings = readSettingsFile(environmentFile(o.env));
        const defaultDays = settings.tokens?.default_expiry_days;
        const expiresAt = o.expires
          ? parseExpiry(o.expires, now)
          : defaultDays
            ? new Date(now.getTime() + defaultDays * 86_400_000)
            : undefined;
        let issued: { secret: string; record: CredentialRecord };
        try {
          issued = await store.update((set) => {
            const r = issueToken(
              set,
              {
                scopes: o.scope,
                ...(expiresAt ? { expiresAt } : {}),
                ...(o.description ? { description: o.description } : {}),
                ...(o.rate ? { rateLimitPerSecond: o.rate } : {}),
              },
              randomBytes,
              now,
            );
            return { set: r.set, result: { secret: r.secret, record: r.record } };
          });
        } catch (err) {
          throw new CliError((err as Error).message);
        }
        process.stdout.write(
          `${issued.secret}\n\nToken ${issued.record.id} created in ${store.where}. It is shown only now: keep it secret.\n`,
        );
      },
    );
  token
    .command('list')
    .description('List tokens (ids, scopes, state; never secrets)')
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
      const rows = set.tokens.map((r) => describeRecord(r, Date.now()));
      if (o.format === 'json') printJson(rows);
      else process.stdout.write(rows.length === 0 ? 'no tokens\n' : renderRows(rows, o.format));
    });
  token
    .command('revoke')
    .description('Revoke a token by id (the gateway stops accepting it within its refresh interval)')
    .argument('<id>', 'token id, as `token list` shows it')
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
          if (!set.tokens.some((t) => t.id === id)) throw new Error(`no token with id ${id}`);
          return { set: revoke(set, id, new Date()), result: undefined };
        });
      } catch (err) {
        throw new CliError((err as Error).message);
      }
      process.stdout.write(`token ${id} revoked\n`);
    });
}
