/**
 * An egress refusal on the live events page (docs/console.md#live-events, #75): a call to a third
 * party the egress gate refused is a `rejected` ledger row with the reason `egress refused: <why>`;
 * the studio's `live` answer shows it in the refused list beside the gateway's refusals, with its
 * reason, the destination as its source and the event as its path, over the BigQuery emulator.
 * Other ledger rows (a platform's own rejection, a delivery) are not refusals of ours and stay out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { RegistryClient } from '../../adapters/registry.ts';
import { EGRESS_REFUSED_LINE } from '../../core/console/live-events.ts';
import { plan } from '../../core/plan.ts';
import { tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { adminCall } from '../support/admin-call.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'live-egress-admin-token-0123456789';

describe('studio: an egress refusal is a live events line with its reason', function () {
  this.timeout(120_000);
  const settings = testSettings();
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('live-egress');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;

  const ledgerRow = (
    id: string,
    destination: string,
    status: string,
    reason: string | null,
    ago: number,
  ): Record<string, unknown> => ({
    event_id: id,
    event_name: 'purchase',
    destination,
    status,
    reason,
    attempt: 1,
    http_status: status === 'delivered' ? 200 : null,
    replay: false,
    recorded_at: new Date(Date.now() - ago).toISOString(),
    payload_digest: `d-${id}`,
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-live-egress-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
    await bigquery
      .dataset(p.dataset)
      .table('deliveries')
      .insert([
        // As forward-catalog writes it (core/platforms/segment-action/outcome.ts): the gate's reason, then the action.
        ledgerRow(
          'ev-meta',
          'hook',
          'rejected',
          'egress refused: 169.254.169.254 is the metadata server (send)',
          20_000,
        ),
        ledgerRow(
          'ev-inside',
          'crm',
          'rejected',
          'egress refused: crm.example.test resolves to 10.0.0.1, a private address',
          10_000,
        ),
        // Not ours to show: the platform said no, or it was delivered, or it is older than the window.
        ledgerRow('ev-400', 'meta', 'rejected', 'platform answered 400: invalid parameter', 5_000),
        ledgerRow('ev-ok', 'hook', 'delivered', null, 4_000),
        ledgerRow('ev-old', 'hook', 'rejected', 'egress refused: a loopback address', 3 * 3_600_000),
      ]);
    const [bucket] = await fx.run.storage.createBucket('live-egress-registry');
    studio = await startStudio({
      registry: new RegistryClient(bucket),
      adminToken: TOKEN,
      warehouse: studioWarehouse(bigquery, settings.project, p),
      opsTable: (name) => tableRef(settings.project, p.ops.dataset, name),
      log: () => {},
    });
  });
  after(async () => {
    await studio?.close();
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const live = (body: unknown) => adminCall(studio.url, TOKEN, 'live', body);
  const since = () => new Date(Date.now() - 3_600_000).toISOString();

  it('each refused call is a line, newest first, with the reason, the destination and the event', async () => {
    const { status, json } = await live({ since: since() });
    assert.equal(status, 200, JSON.stringify(json));
    assert.deepEqual(
      json['refused']?.map((r) => [r['code'], r['reason'], r['source'], r['path'], r['status']]),
      [
        [
          EGRESS_REFUSED_LINE,
          'egress refused: crm.example.test resolves to 10.0.0.1, a private address',
          'destination:crm',
          'event:ev-inside',
          null,
        ],
        [
          EGRESS_REFUSED_LINE,
          'egress refused: 169.254.169.254 is the metadata server (send)',
          'destination:hook',
          'event:ev-meta',
          null,
        ],
      ],
    );
    assert.equal(json['refused']?.[0]?.['represents'], 1);
  });

  it('the filter narrows it by destination or reason, and "stored events only" leaves it out', async () => {
    const byDestination = await live({ since: since(), filter: 'HOOK' });
    assert.deepEqual(
      byDestination.json['refused']?.map((r) => r['path']),
      ['event:ev-meta'],
    );
    const bySource = await live({ since: since(), filter: 'destination:crm' });
    assert.deepEqual(
      bySource.json['refused']?.map((r) => r['path']),
      ['event:ev-inside'],
    );
    const byReason = await live({ since: since(), filter: 'private address' });
    assert.deepEqual(
      byReason.json['refused']?.map((r) => r['path']),
      ['event:ev-inside'],
    );
    assert.deepEqual((await live({ since: since(), filter: 'no-such-thing' })).json['refused'], []);
    assert.deepEqual((await live({ since: since(), only: 'accepted' })).json['refused'], []);
  });
});
