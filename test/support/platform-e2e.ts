/**
 * What the platforms' end-to-end tests share: the local environment started with the local
 * settings plus some destinations, events posted to its gateway with the development token, and
 * a destination's final ledger row for an event read from the warehouse emulator.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { REPO, type StartedLocal, startLocalCli } from './local-start.ts';
import { until } from './until.ts';

export interface PlatformEnvironment extends StartedLocal {
  /** The settings text the environment runs (environments/local.yaml and the destinations). */
  readonly settingsText: string;
  readonly bigquery: BigQuery;
  /** Posts one event to a topic of the gateway; asserts it was taken. */
  post(topic: string, body: Record<string, unknown>): Promise<void>;
  /** The destination's final row (delivered, rejected or skipped) for an event, once written. */
  ledger(id: string, destination: string): Promise<{ status: string; reason: string | null }>;
}

/** Starts `eventbus start` with the local settings and `destinations` (YAML list items) appended. */
export async function startWithDestinations(
  prefix: string,
  destinations: string,
): Promise<PlatformEnvironment> {
  const settingsText = `${readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8')}${destinations}`;
  const local = await startLocalCli({
    prefix,
    settings: (dir) => {
      const file = join(dir, 'settings.yaml');
      writeFileSync(file, settingsText);
      return file;
    },
  });
  const bigquery = new BigQuery({
    projectId: 'local-project',
    apiEndpoint: `http://127.0.0.1:${local.ports['bigquery']}`,
  });
  return {
    ...local,
    settingsText,
    bigquery,
    async post(topic, body) {
      const token = readFileSync(join(local.dataDir, 'dev-token'), 'utf8').trim();
      const res = await fetch(`http://127.0.0.1:${local.ports['gateway']}/v1/topics/${topic}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, await res.clone().text());
    },
    ledger: (id, destination) =>
      until(
        `the ${destination} row of ${id}`,
        async () => {
          const [rows] = await bigquery.query({
            query: `SELECT status, reason FROM \`local-project.events.deliveries\` WHERE event_id = '${id}' AND destination = '${destination}' AND status IN ('delivered', 'rejected', 'skipped')`,
          });
          return (rows as { status: string; reason: string | null }[])[0];
        },
        90000,
      ),
  };
}

/** A Google Ads destination at the receiver's Data Manager stand-in (its OAuth file written by the supervisor). */
export const GOOGLE_ADS_DESTINATION = `  - id: google-ads
    type: google_ads
    base_url: http://127.0.0.1:8099/google-ads
    config: { operating_account_id: "1234567890" }
    secrets: { credentials: GOOGLE_ADS_CREDENTIALS }
    mappings:
      purchase: { event: "987654321" }
      lead: { event: "987654322" }
    retry: { minimum_backoff: 1s, maximum_backoff: 5s, max_attempts: 5 }
`;
