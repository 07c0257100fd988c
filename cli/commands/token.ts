/**
 * `eventbus token create|list|revoke`: project tokens for producers. The secret is printed once;
 * only its salted hash is stored, in the store the environment uses (EVENTBUS_TOKEN_STORE, else
 * `.data/tokens.json` for the local environment, else the Secret Manager secret of its settings).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import type { CredentialRecord, CredentialSet } from '../../gateway/credentials.ts';
import type { TokenStore } from '../../gateway/token-store.ts';
import type { Settings } from '../../schemas/settings.ts';
import { type Env, loadEnvironment } from '../environment.ts';
import { CliError, formatOption, type OutputFormat, printJson, renderRows, writerOf } from '../output.ts';

/** The options every token and key subcommand takes to find its store. */
export interface StoreFlags {
  env: string;
  dataDir?: string;
  store?: string;
}

/** Adds `--env`, `--data-dir` and `--store` (the same on every token and key subcommand). */
export function storeOptions(command: Command): Command {
  return command
    .option('--env <name>', 'environment name or settings file', 'local')
    .option('--data-dir <dir>', 'local state directory (default .data)')
    .option(
      '--store <spec>',
      'token store: file:<path> or secret:<name> (default: EVENTBUS_TOKEN_STORE, else per environment)',
    );
}

/** `--rate`: a positive number of requests per second. */
export function parseRate(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

/**
 * The token store an environment uses, as the gateway would open it: `--store`, else
 * EVENTBUS_TOKEN_STORE, else `<data dir>/tokens.json` for the local environment, else the
 * Secret Manager secret of its settings. Returns the settings too (create reads defaults).
 */
export async function storeFor(
  flags: StoreFlags,
  env: Env = process.env,
): Promise<{ store: TokenStore; settings: Readonly<Settings> }> {
  const [{ settings, plan }, { openTokenStore }, { REPO_ROOT }] = await Promise.all([
    loadEnvironment(flags.env),
    import('../../gateway/token-store.ts'),
    import('../../local/settings-file.ts'),
  ]);
  const project = env['GOOGLE_CLOUD_PROJECT'] || settings.project;
  const spec =
    flags.store ??
    env['EVENTBUS_TOKEN_STORE'] ??
    (settings.name === 'local'
      ? `file:${join(flags.dataDir ?? join(REPO_ROOT, '.data'), 'tokens.json')}`
      : // The secret the gateway reads (plan(), as Pulumi declares it and sets EVENTBUS_TOKEN_STORE).
        `secret:${plan.gateway.tokenSecret}`);
  try {
    return { store: openTokenStore(spec, project), settings };
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/**
 * `--expires` (an ISO date, a duration like 30d / 12h, or `never`), else the settings' default
 * (`tokens.default_expiry_days`), else none.
 */
export async function expiryOf(
  text: string | undefined,
  defaultDays: number | undefined,
  now: Date,
): Promise<Date | undefined> {
  if (text === undefined) return defaultDays ? new Date(now.getTime() + defaultDays * 86_400_000) : undefined;
  const { parseExpiry } = await import('../../gateway/credentials.ts');
  const r = parseExpiry(text, now);
  if (!r.ok) throw new CliError(`--expires ${r.problem}`);
  return r.at;
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
    expires_at: r.expires_at ?? 'never',
    description: r.description ?? '',
  };
}

export function register(program: Command): void {
  const token = program
    .command('token')
    .description('Project tokens for producers (Authorization: Bearer …)');
  storeOptions(
    token
      .command('create')
      .description('Create a token and print it ONCE (only a salted hash is kept)')
      .requiredOption(
        '--scope <scope...>',
        'publish:*, publish:<topic or event>, translate:*, translate:<translator>, admin',
      )
      .option('--expires <when>', 'expiry: an ISO date, a duration like 30d or 12h, or never')
      .option('--description <text>', 'what the token is for')
      .option('--rate <n>', 'requests per second for this token (default: settings.tokens)', parseRate),
  )
    .addHelpText(
      'after',
      '\nExample:\n  eventbus token create --scope publish:* --expires 90d --description "backend"',
    )
    .action(
      async (
        o: StoreFlags & { scope: string[]; expires?: string; description?: string; rate?: number },
        command: Command,
      ) => {
        const [{ store, settings }, { issueToken }] = await Promise.all([
          storeFor(o),
          import('../../gateway/credentials.ts'),
        ]);
        const now = new Date();
        const expiresAt = await expiryOf(o.expires, settings.tokens?.default_expiry_days, now);
        let issued: { secret: string; record: CredentialRecord };
        try {
          issued = await store.update((set) => {
            const r = issueToken(
              set,
              {
                scopes: o.scope,
                ...(expiresAt ? { expiresAt } : {}),
                ...(o.description ? { description: o.description } : {}),
                ...(o.rate !== undefined ? { rateLimitPerSecond: o.rate } : {}),
              },
              randomBytes,
              now,
            );
            return { set: r.set, result: { secret: r.secret, record: r.record } };
          });
        } catch (err) {
          throw new CliError((err as Error).message);
        }
        writerOf(command)(
          `${issued.secret}\n\nToken ${issued.record.id} created in ${store.where}. It is shown only now: keep it secret.\n`,
        );
      },
    );
  storeOptions(token.command('list').description('List tokens (ids, scopes, state; never secrets)'))
    .addOption(formatOption(['table', 'json', 'csv']))
    .action(async (o: StoreFlags & { format: OutputFormat }, command: Command) => {
      const set = await readStore(o);
      printRecords(
        set.tokens.map((r) => describeRecord(r, Date.now())),
        o.format,
        'no tokens',
        writerOf(command),
      );
    });
  storeOptions(
    token
      .command('revoke')
      .description('Revoke a token by id (the gateway stops accepting it within its refresh interval)')
      .argument('<id>', 'token id, as `token list` shows it'),
  ).action(async (id: string, o: StoreFlags, command: Command) => {
    await revokeRecord(o, id, 'token');
    writerOf(command)(`token ${id} revoked\n`);
  });
}

/** Prints `list` rows, or `empty` when there are none (JSON: always the array). */
export function printRecords(
  rows: readonly Record<string, unknown>[],
  format: OutputFormat,
  empty: string,
  write: (text: string) => void,
): void {
  if (format === 'json') printJson(rows, { out: write, err: write });
  else write(rows.length === 0 ? `${empty}\n` : renderRows(rows, format));
}

/** The environment's tokens and keys; a store that cannot be read is a CliError (no stack). */
export async function readStore(flags: StoreFlags): Promise<CredentialSet> {
  const { store } = await storeFor(flags);
  try {
    return await store.read();
  } catch (err) {
    throw new CliError(`cannot read ${store.where}: ${(err as Error).message}`);
  }
}

/** Revokes a token or write key by id in the environment's store; an unknown id is an error. */
export async function revokeRecord(flags: StoreFlags, id: string, kind: 'token' | 'key'): Promise<void> {
  const [{ store }, { revoke }] = await Promise.all([
    storeFor(flags),
    import('../../gateway/credentials.ts'),
  ]);
  try {
    await store.update((set) => {
      const records = kind === 'token' ? set.tokens : set.keys;
      if (!records.some((r) => r.id === id))
        throw new Error(`no ${kind === 'token' ? 'token' : 'write key'} with id ${id}`);
      return { set: revoke(set, id, new Date()), result: undefined };
    });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}
