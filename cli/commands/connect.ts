/**
 * `eventbus connect <destination>`: an `oauth2` connection for an OAuth catalogue destination
 * (issue #78; docs/catalog-destinations.md, "OAuth").
 *
 *   eventbus connect google-sheets --client-id 123.apps.googleusercontent.com \
 *     --client-secret GOCSPX-… --refresh-token 1//0g… [--id google] [--access-token ya29.…]
 *   eventbus connect google-sheets --stand-in     # locally: a client of the local OAuth stand-in
 *
 * It keeps each credential as a secret where the workloads read it (the running local
 * environment's Secret Manager emulator; for a deployed one it says the Secret Manager commands
 * instead: values are never printed) and prints the `connections[]` entry and the destination's
 * `connection:` line to paste into the settings. What the destination's refresh function reads
 * (oauth-destinations.json) must be given. `--stand-in` makes up the client and refresh token,
 * registers them with the local OAuth stand-in (local/platforms/oauth.ts) and stores them, so a
 * destination can be tried on a laptop without the provider.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  OAUTH_CONNECTION,
  type OAuthConnectionRole,
  oauthDefinition,
  oauthDefinitions,
  ROLE_OF_CREDENTIAL,
} from '../../core/platforms/segment-action/oauth.ts';
import { createCommand } from '../../core/translate/translator-secrets.ts';
import { DATA_DIR_OPTION } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';

interface ConnectFlags {
  id?: string;
  clientId?: string;
  clientSecret?: string;
  refreshToken?: string;
  accessToken?: string;
  standIn?: boolean;
  dataDir?: string;
}

const ID = /^[a-z][a-z0-9_-]{0,62}$/;

/** The connection id: `--id`, else the destination's slug (prefixed where a slug starts with a digit). */
export function connectionIdOf(slug: string, id: string | undefined): string {
  const chosen = id ?? (/^[a-z]/.test(slug) ? slug : `c-${slug}`);
  if (!ID.test(chosen))
    throw new CliError(`--id ${chosen}: a connection id is lower case, ^[a-z][a-z0-9_-]{0,62}$`);
  return chosen;
}

/** `google-sheets` + `refresh_token` → `GOOGLE_SHEETS_REFRESH_TOKEN`. */
export const secretNameOf = (id: string, role: OAuthConnectionRole): string =>
  `${id.toUpperCase().replace(/-/g, '_')}_${role.toUpperCase()}`;

/** The roles the destination's connection must name, from Segment's definition. */
function requiredRoles(slug: string): OAuthConnectionRole[] {
  const def = oauthDefinition(slug);
  if (!def) return [];
  return def.refresh ? def.reads.map((k) => ROLE_OF_CREDENTIAL[k]) : ['access_token'];
}

/** The running local environment (its Secret Manager emulator, its receiver), if one runs. */
async function localEnvironment(dataDir: string | undefined) {
  const [{ readEnvironmentRecord }, { REPO_ROOT }] = await Promise.all([
    import('../../local/environment-record.ts'),
    import('../../local/settings-file.ts'),
  ]);
  const found = readEnvironmentRecord(resolve(dataDir ?? join(REPO_ROOT, '.data')));
  return found.state === 'running' ? found.record : undefined;
}

export function register(program: Command): void {
  program
    .command('connect')
    .description('Keep the OAuth client and refresh token of a catalogue destination as an oauth2 connection')
    .argument(
      '<destination>',
      'an OAuth catalogue destination (`eventbus destinations list --catalog --search oauth`)',
    )
    .option('--id <id>', 'the connection id (default: the destination’s)')
    .option('--client-id <id>', 'the OAuth client id')
    .option('--client-secret <value>', 'the OAuth client secret')
    .option('--refresh-token <value>', 'the refresh token the provider granted')
    .option(
      '--access-token <value>',
      'an access token: the first one sent, or the only one where the destination cannot refresh',
    )
    .option(
      '--stand-in',
      'locally: make up a client and refresh token and register them with the local OAuth stand-in',
    )
    .option(...DATA_DIR_OPTION)
    .action(async (slug: string, o: ConnectFlags, cmd: Command) => {
      const def = oauthDefinition(slug);
      if (!def)
        throw new CliError(
          `${slug} is not an OAuth catalogue destination (${Object.keys(oauthDefinitions().destinations).join(', ')})`,
        );
      const id = connectionIdOf(slug, o.id);
      const out = writerOf(cmd);
      const local = await localEnvironment(o.dataDir);
      const values: Partial<Record<OAuthConnectionRole, string>> = {
        ...(o.clientId ? { client_id: o.clientId } : {}),
        ...(o.clientSecret ? { client_secret: o.clientSecret } : {}),
        ...(o.refreshToken ? { refresh_token: o.refreshToken } : {}),
        ...(o.accessToken ? { access_token: o.accessToken } : {}),
      };
      if (o.standIn) {
        const receiver = local?.urls['receiver'];
        if (!receiver) throw new CliError('--stand-in needs the local environment running (npm start)');
        const made = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;
        values.client_id ??= made('local-client-');
        values.client_secret ??= made('local-secret-');
        values.refresh_token ??= made('local-refresh-');
        const res = await fetch(`${receiver}/capture/_standin/oauth/clients`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_id: values.client_id,
            client_secret: values.client_secret,
            refresh_token: values.refresh_token,
          }),
        });
        if (res.status !== 204)
          throw new CliError(`the local OAuth stand-in answered ${res.status}: ${await res.text()}`);
        out(`client ${values.client_id} registered with the local OAuth stand-in\n`);
      }
      const missing = requiredRoles(slug).filter((r) => values[r] === undefined);
      if (missing.length > 0)
        throw new CliError(
          `${slug} ${def.refresh ? "refreshes its token with Segment's refreshAccessToken, which reads" : 'cannot refresh a token: it needs'} ${missing.map((r) => `--${r.replace(/_/g, '-')}`).join(', ')}`,
        );
      const secrets: Partial<Record<OAuthConnectionRole, string>> = {};
      for (const [role, value] of Object.entries(values) as [OAuthConnectionRole, string][]) {
        const name = secretNameOf(id, role);
        secrets[role] = name;
        if (local?.secretManagerUrl) {
          const { putSecret } = await import('../../local/local-secrets.ts');
          await putSecret(local.secretManagerUrl, local.project, name, value);
          out(`secret ${name} stored in the local Secret Manager emulator\n`);
        } else {
          out(
            `put ${role} in Secret Manager (the value is not shown here):\n  ${createCommand(process.env['GOOGLE_CLOUD_PROJECT'] || '<project>', name)}\n  (paste the value, then Ctrl-D)\n`,
          );
        }
      }
      const flow = Object.entries(secrets)
        .map(([role, name]) => `${role}: ${name}`)
        .join(', ');
      out(
        [
          '',
          'add to the settings (then `eventbus settings check`):',
          'connections:',
          `  - id: ${id}`,
          `    type: ${OAUTH_CONNECTION}`,
          `    secrets: {${flow === '' ? '' : ` ${flow} `}}`,
          'destinations:',
          `  - id: ${id}`,
          '    type: segment_action',
          `    destination: ${slug}`,
          `    connection: ${id}`,
          '',
        ].join('\n'),
      );
    });
}
