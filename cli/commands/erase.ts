/**
 * `eventbus erase <identifier…>`: an erasure request (docs/privacy.md, "Erasure"). Records the
 * request in the registry bucket (`erasures/<id>.json`) and exits 0: the scheduler's erasure job
 * runs it within a minute and again until BigQuery's streaming buffer lets every table go
 * (functions/schedule/erasures.ts), recording each pass in the ops table `erasures`. `--wait`
 * follows it to the end; `--status <id>` shows where one stands.
 */

import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import { plainValue } from '../../adapters/user-sql.ts';
import { registryBucketName } from '../../core/plan.ts';
import {
  ERASURE_REQUESTS_PREFIX,
  type ErasureRequest,
  newErasureRequest,
} from '../../core/privacy/erasure.ts';
import { erasureHash } from '../../core/suppression/erased.ts';
import { PRIVACY_TABLES } from '../../core/warehouse/privacy-audit.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import {
  DATA_DIR_OPTION,
  LOCAL_ENDPOINT_HELP,
  loadEnvironment,
  storageClient,
  warehouseClient,
} from '../environment.ts';
import { CliError, writerOf } from '../output.ts';

/** Who asks, when not given: the operator's login on this machine. */
export const defaultRequester = (): string => `cli:${userInfo().username}@${hostname()}`;

/** A new request, or a CliError naming what is not an identifier. */
export function erasureRequest(given: readonly string[], by: string, now: Date): ErasureRequest {
  const made = newErasureRequest(given, by, now);
  if ('violations' in made) throw new CliError(made.violations.map((v) => v.description).join('; '));
  return made.request;
}

interface Options {
  env: string;
  dataDir?: string;
  requestedBy?: string;
  wait?: boolean;
  timeout: string;
  status?: string;
}

export function register(program: Command): void {
  program
    .command('erase')
    .description('Erase a person from every table the product writes, and keep them out (an erasure request)')
    .argument(
      '[identifiers...]',
      'anonymous_id:…, user_id:…, email:… or phone:… (plain or SHA-256; hashed here), or a person id; several name one person',
    )
    .option('--requested-by <who>', 'who asks (recorded in the erasures table)', undefined)
    .option('--wait', 'follow the request until no table holds the person')
    .option('--timeout <minutes>', 'with --wait: give up waiting after this many minutes', '120')
    .option('--status <erasure-id>', 'show where a request stands instead of making one')
    .option('--env <name>', 'environment name or settings file', 'local')
    .option(...DATA_DIR_OPTION)
    .addHelpText(
      'after',
      [
        '',
        LOCAL_ENDPOINT_HELP,
        '',
        'Examples:',
        '  eventbus erase email:ann@example.com',
        '  eventbus erase user_id:u-1 phone:+33612345678 --wait',
        '  eventbus erase --status er-20261125-1a2b3c4d',
      ].join('\n'),
    )
    .action(async (given: string[], o: Options, cmd: Command) => {
      const write = writerOf(cmd);
      if (!o.status && given.length === 0) throw new CliError('name the person: at least one identifier');
      const request = o.status
        ? undefined
        : erasureRequest(given, o.requestedBy ?? defaultRequester(), new Date());
      const { plan: p } = await loadEnvironment(o.env);
      const bigquery = await warehouseClient(p, process.env, o.dataDir);
      const status = async (id: string) => {
        const [rows] = await bigquery.query({
          query: `SELECT erasure_id, status, requested_at, requested_by, removed, waiting, platforms, passes, completed_at FROM ${tableRef(p.project, p.ops.dataset, PRIVACY_TABLES.erasures)} WHERE erasure_id = @id`,
          params: { id },
          useLegacySql: false,
        });
        return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>)[0];
      };
      if (o.status) {
        const row = await status(o.status);
        write(`${JSON.stringify(row ?? { erasure_id: o.status, status: 'recorded: no pass yet' })}\n`);
        return;
      }
      if (!request) return;
      const storage = await storageClient(p, process.env, o.dataDir);
      await storage
        .bucket(registryBucketName(p.project, p.environment))
        .file(`${ERASURE_REQUESTS_PREFIX}${request.erasure_id}.json`)
        .save(JSON.stringify(request), {
          resumable: false,
          contentType: 'application/json',
          preconditionOpts: { ifGenerationMatch: 0 },
        });
      const hashes = request.identifiers.filter((i) => i.includes(':')).map(erasureHash);
      write(
        [
          `erasure ${request.erasure_id} recorded (identifiers kept as hashes: ${hashes.map((h) => h.slice(0, 12)).join(', ')})`,
          'pending: the scheduler removes the person from every table within minutes; rows still in',
          "BigQuery's streaming buffer (up to ~90 minutes after they arrived) go in a later pass.",
          `follow it: eventbus erase --status ${request.erasure_id}${o.wait ? '' : ' (or --wait)'}`,
          '',
        ].join('\n'),
      );
      if (!o.wait) return;
      const deadline = Date.now() + Number(o.timeout) * 60_000;
      let last = '';
      for (;;) {
        const row = await status(request.erasure_id);
        const line = row
          ? `${row['status']}: pass ${row['passes']}, removed ${row['removed']}${(row['waiting'] as string[] | undefined)?.length ? `, waiting for ${(row['waiting'] as string[]).join(', ')}` : ''}`
          : 'recorded: no pass yet';
        if (line !== last) write(`${line}\n`);
        last = line;
        if (row?.['status'] === 'complete') return;
        if (Date.now() > deadline) throw new CliError(`still pending after ${o.timeout} minutes: ${line}`);
        await new Promise((r) => setTimeout(r, 3000));
      }
    });
}
