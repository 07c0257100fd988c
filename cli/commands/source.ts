/**
 * `eventbus source list|add`: the source catalogue (docs/sources/README.md) in one command.
 *
 *   eventbus source list
 *   eventbus source add stripe --secret whsec_… [--consent ads,analytics] [--name stripe-eu]
 *
 * `add` applies the source's translator through the studio (as `apply -f` does), keeps the
 * vendor's signing secret where the gateway reads it (the local environment's Secret Manager
 * emulator; for a deployed one, it says the Secret Manager command instead: the value is never
 * printed),
 * and prints the endpoint URL and what to paste in the vendor's dashboard.
 */
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { readCatalogue } from '../../adapters/source-catalogue.ts';
import {
  connectText,
  parseConsent,
  type Source,
  secretName,
  sourceTranslator,
} from '../../core/translate/sources.ts';
import { createCommand } from '../../core/translate/translator-secrets.ts';
import { DATA_DIR_OPTION } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';
import { studioCall } from './resources.ts';

function findSource(vendor: string): Source {
  const catalogue = readCatalogue();
  const found = catalogue.find((s) => s.name === vendor.toLowerCase());
  if (!found)
    throw new CliError(`no source "${vendor}" in the catalogue: ${catalogue.map((s) => s.name).join(', ')}`);
  return found;
}

/** The gateway's address: --gateway, else the running local environment's, else a placeholder. */
async function gatewayOf(o: {
  gateway?: string;
  dataDir?: string;
}): Promise<{ url: string; local?: string; secretManager?: string; project?: string }> {
  if (o.gateway) return { url: o.gateway };
  if (process.env['EVENTBUS_STUDIO_URL']) return { url: 'https://{gateway}' };
  const [{ readEnvironmentRecord }, { REPO_ROOT }] = await Promise.all([
    import('../../local/environment-record.ts'),
    import('../../local/settings-file.ts'),
  ]);
  const dir = resolve(o.dataDir ?? join(REPO_ROOT, '.data'));
  const found = readEnvironmentRecord(dir);
  const record = found.state === 'running' ? found.record : undefined;
  const url = record?.urls['gateway'];
  if (!url || !record) return { url: 'https://{gateway}' };
  return {
    url,
    local: dir,
    project: record.project,
    ...(record.secretManagerUrl ? { secretManager: record.secretManagerUrl } : {}),
  };
}

export function register(program: Command): void {
  const source = program
    .command('source')
    .description('Ready translators for the tools you already run (Stripe, Shopify, HubSpot, …)');

  source
    .command('list')
    .description('List the source catalogue')
    // Taken like every command's, though the catalogue is the same for every environment.
    .option(...DATA_DIR_OPTION)
    .action((_o: unknown, cmd: Command) => {
      const out = writerOf(cmd);
      for (const s of readCatalogue()) out(`${s.name}\t${s.title}\t${s.auth}\t${s.description}\n`);
    });

  source
    .command('add')
    .description(
      'Apply a source of the catalogue as a translator and say what to paste in the vendor’s dashboard',
    )
    .argument('<vendor>', 'a name from `eventbus source list`')
    .option('--secret <value>', 'the vendor’s signing secret (sources that sign)')
    .option(
      '--consent <purposes>',
      'consent granted to its events unless the payload says otherwise: analytics,ads,ad_user_data,ad_personalization or none',
      'none',
    )
    .option('--name <name>', 'the translator’s name (default: the source’s)')
    .option(
      '--gateway <url>',
      'the gateway’s address, for the URL printed (default: the local environment’s)',
    )
    .option(...DATA_DIR_OPTION)
    .action(
      async (
        vendor: string,
        o: { secret?: string; consent: string; name?: string; gateway?: string; dataDir?: string },
        cmd: Command,
      ) => {
        const s = findSource(vendor);
        const consent = parseConsent(o.consent);
        if (!consent.ok) throw new CliError(consent.error);
        if (s.auth === 'signature' && !o.secret)
          throw new CliError(`${s.title} signs its requests: pass its signing secret with --secret`);
        if (s.auth !== 'signature' && o.secret)
          throw new CliError(
            `${s.title} does not sign its requests: --secret has no use (docs/sources/${s.name}.md)`,
          );
        const resource = sourceTranslator(s, {
          ...(o.name ? { name: o.name } : {}),
          consent: consent.purposes,
        });
        const out = writerOf(cmd);
        const gateway = await gatewayOf(o);
        const secret = secretName(s, resource.name);
        if (secret && o.secret) {
          if (gateway.secretManager) {
            const { putSecret } = await import('../../local/local-secrets.ts');
            await putSecret(gateway.secretManager, gateway.project ?? '', secret, o.secret);
            out(`secret ${secret} stored in the local Secret Manager emulator\n`);
          } else {
            out(
              `put the secret in Secret Manager (the value is not shown here):\n  ${createCommand(process.env['GOOGLE_CLOUD_PROJECT'] || '<project>', secret)}\n  (paste the value, then Ctrl-D)\n`,
            );
          }
        }
        const answer = (await studioCall(o, 'POST', '/v1/admin/apply', {
          documents: [resource],
          dryRun: false,
        })) as { changes: { kind: string; name: string; change: string; version: string }[] };
        for (const c of answer.changes) out(`${c.kind}/${c.name} ${c.change} ${c.version}\n`);
        out(
          `consent: ${consent.purposes.length > 0 ? `${consent.purposes.join(', ')} granted unless the payload says otherwise` : 'none granted: ad and analytics destinations skip these events (they are stored); --consent to grant'}\n`,
        );
        if (s.auth === 'url_token')
          out(
            `a token for the URL: eventbus token create --scope translate:${resource.name} --description "${s.title}"\n`,
          );
        out(`\n${connectText(s, gateway.url, resource.name)}`);
        out(`GA4 client id: ${s.ga4_client_id}\n`);
      },
    );
}
