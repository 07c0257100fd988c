/**
 * What both delivery functions (forward, forward-catalog) load after their module, in the
 * background: the ledger's writer, the send-once claims, the secrets, and the erased persons' list
 * (read before the first push). No query runs on the delivery path: whether a delivery happened is
 * the claim's word (core/claims/send-once.ts); BigQuery is only written to. Each function adds its own parts (its
 * sender, tokens, definitions; the catalogue's fetch).
 */
import type { FunctionConfig } from '../core/runtime-config.ts';
import { tracedClaims } from './delivery-tracing.ts';
import { environmentClaims } from './environment-claims.ts';
import { createLedgerBigQueryWriter, createLedgerWriter, LEDGER_TABLE } from './ledger-writer.ts';
import { createSecrets } from './secrets.ts';
import type { SuppressionList } from './suppression-list.ts';

export async function deliveryServices(config: FunctionConfig, component: string, erased: SuppressionList) {
  // The BigQuery client (and with it google-auth-library) is loaded here, not during the bundle's
  // load: it was ~100 ms of it.
  const { BigQuery } = await import('@google-cloud/bigquery');
  const bigquery = new BigQuery({ projectId: config.project });
  const ledgerRows = createLedgerBigQueryWriter(bigquery, config.plan.dataset);
  // The ledger's connection is open before the first push: a delivery's row is then written within
  // milliseconds of the platform's answer. Opened on the first push's write (~0.3–2 s: Google's
  // Write API client loads, GetWriteStream), it left a window in which a stopped process had sent
  // without a record, and the redelivery sent again (the chaos run's duplicates). A warehouse away
  // now is a warning: the first write opens it again and fails the push if it must.
  await Promise.all([
    erased.ready(),
    ledgerRows.open(LEDGER_TABLE).catch((err: unknown) =>
      console.log(
        JSON.stringify({
          severity: 'WARNING',
          message: `the ledger's connection could not be opened ahead of the first push: ${(err as Error).message}`,
          component,
        }),
      ),
    ),
  ]);
  return {
    ledger: createLedgerWriter(ledgerRows),
    // The send-once claims (core/claims/send-once.ts): taken before a call that is not the first
    // fan-out's first try, settled `delivered` after every delivery. A store that cannot be reached
    // fails the attempt, which comes back later.
    claims: tracedClaims(environmentClaims(config)),
    secrets: createSecrets({
      env: config.secretEnv,
      secretsDir: config.secretsDir,
      endpoint: config.secretManager,
      project: config.project,
    }),
    suppression: () => erased.current(),
  };
}
