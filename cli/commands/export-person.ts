/**
 * `eventbus export-person <kind>:<value> …`: an access request (docs/privacy.md, "Access
 * requests"). Writes every stored row about one person as JSON Lines, one line per row
 * (`{"table": "<dataset>.<table>", "row": {…}}`), to stdout or a file. Read-only: the queries
 * are core/privacy/export-person.ts's SELECTs, the identifiers their parameters. Then records who
 * asked in the ops table `exports` (the identifiers as hashes, the rows per table): the one write.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Command } from 'commander';
import { plainValue } from '../../adapters/user-sql.ts';
import { SESSION_TABLES } from '../../core/models/sessions.ts';
import { personIdentifiers } from '../../core/privacy/erasure.ts';
import {
  exportAuditSql,
  exportLine,
  exportPersonQueries,
  newExportId,
} from '../../core/privacy/export-person.ts';
import { expandSql, rawNeedles } from '../../core/privacy/person.ts';
import { PRIVACY_TABLES } from '../../core/warehouse/privacy-audit.ts';
import { TABLES, tableRef } from '../../core/warehouse/warehouse.ts';
import { DATA_DIR_OPTION, LOCAL_ENDPOINT_HELP, loadEnvironment, warehouseClient } from '../environment.ts';
import { CliError, writerOf } from '../output.ts';
import { defaultRequester } from './erase.ts';

interface Options {
  env: string;
  dataDir?: string;
  out?: string;
  requestedBy?: string;
}

export function register(program: Command): void {
  program
    .command('export-person')
    .description('Export every stored row about one person (an access request), as JSON Lines')
    .argument(
      '<identifiers...>',
      'anonymous_id:…, user_id:…, email:… or phone:… (plain or SHA-256), or a person id; several name one person',
    )
    .option('--out <file>', 'write the lines to this file (created private) instead of stdout')
    .option('--requested-by <who>', 'who asks (recorded in the exports table)', undefined)
    .option('--env <name>', 'environment name or settings file', 'local')
    .option(...DATA_DIR_OPTION)
    .addHelpText(
      'after',
      [
        '',
        LOCAL_ENDPOINT_HELP,
        '',
        'Examples:',
        '  eventbus export-person email:ann@example.com',
        '  eventbus export-person user_id:u-1 anonymous_id:a-9 --out ann.jsonl',
      ].join('\n'),
    )
    .action(async (given: string[], o: Options, cmd: Command) => {
      const { identifiers, violations } = personIdentifiers(given);
      if (violations.length > 0) throw new CliError(violations.map((v) => v.description).join('; '));
      const { plan: p } = await loadEnvironment(o.env);
      const bigquery = await warehouseClient(p, process.env, o.dataDir);
      const identityGraph = p.tables.some((t) => t.name === SESSION_TABLES.identityMap);
      // The person's identifiers widened as an erasure widens them (the graph, their trusted events).
      const [found] = await bigquery.query({
        query: expandSql({ project: p.project, dataset: p.dataset, identityGraph }),
        params: { identifiers },
        types: { identifiers: ['STRING'] },
        useLegacySql: false,
      });
      const widened = [
        ...new Set([...identifiers, ...(found as { identifier: string }[]).map((r) => r.identifier)]),
      ];
      const queries = exportPersonQueries(
        {
          project: p.project,
          dataset: p.dataset,
          identityGraph,
          ops: p.ops.dataset,
          actionRuns: p.tables.some((t) => t.name === TABLES.actionRuns),
        },
        widened,
        rawNeedles(given),
      );
      const now = new Date();
      const counts: Record<string, number> = {};
      const fd = o.out === undefined ? undefined : openSync(o.out, 'w', 0o600);
      const write = fd === undefined ? writerOf(cmd) : (text: string) => writeSync(fd, text);
      try {
        for (const q of queries) {
          const [rows] = await bigquery.query({
            query: q.sql,
            params: q.params,
            types: q.types,
            useLegacySql: false,
          });
          const lines = (rows as unknown[]).map((r) => `${exportLine(q, plainValue(r))}\n`);
          counts[q.table] = lines.length;
          if (lines.length > 0) write(lines.join(''));
        }
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
      const audit = exportAuditSql(tableRef(p.project, p.ops.dataset, PRIVACY_TABLES.exports), {
        export_id: newExportId(now),
        requested_at: now.toISOString(),
        requested_by: o.requestedBy ?? defaultRequester(),
        identifiers,
        rows: counts,
      });
      await bigquery.query({ query: audit.sql, params: audit.params, useLegacySql: false });
    });
}
