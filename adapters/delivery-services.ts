/**
 * What both delivery functions (forward, forward-catalog) load after their module, in the
 * background: the ledger's writer and its delivered check on one BigQuery client, the secrets, and
 * the erased persons' list (read before the first push). Each function adds its own parts (its
 * sender, tokens, definitions; the catalogue's fetch).
 */
import type { FunctionConfig } from '../core/runtime-config.ts';
import { createDeliveredCheck, ledgerDeliveredQuery } from './delivered-check.ts';
import { tracedClaims } from './delivery-tracing.ts';
import { environmentClaims } from './firestore-claims.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from './ledger-writer.ts';
import { createSecrets } from './secrets.ts';
import type { SuppressionList } from './suppression-list.ts';

export async function deliveryServices(config: FunctionConfig, component: string, erased: SuppressionList) {
  // The BigQuery client (and with it google-auth-library) is loaded here, not during the bundle's
  // load: it was ~100 ms of it.
  const { BigQuery } = await import('@google-cloud/bigquery');
  await erased.ready();
  const bigquery = new BigQuery({ projectId: config.project });
  return {
    ledger: createLedgerWriter(createLedgerBigQueryWriter(bigquery, config.plan.dataset)),
    // The send-once claims (core/claims/send-once.ts), before every call; a held one asks the
    // ledger, which must then answer: no answer fails the attempt, which comes back later.
    claims: tracedClaims(environmentClaims(config)),
    alreadyDelivered: createDeliveredCheck(ledgerDeliveredQuery(bigquery, config.plan.dataset), {
      onFailure: 'closed',
      log: (message: string) => console.log(JSON.stringify({ severity: 'WARNING', message, component })),
    }),
    secrets: createSecrets({
      env: config.secretEnv,
      secretsDir: config.secretsDir,
      endpoint: config.secretManager,
      project: config.project,
    }),
    suppression: () => erased.current(),
  };
}
