/**
 * core/deploy/catalog-function.ts and what plan(), the bill and the access table derive from it
 * (issue #65): forward-catalog exists only with a catalogue destination, takes exactly those
 * destinations' subscriptions and secrets, costs nothing idle, and leaves forward as it was.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { accessNeeds } from '../../../core/access/needs.ts';
import { CLAIM_RETRY_SHARE, monthlyBill, trafficShape, workloadsOf } from '../../../core/deploy/bill.ts';
import {
  CATALOG_DEFAULT_MEMORY,
  CATALOG_ENTRY_POINT,
  CATALOG_FUNCTION,
  catalogDestinations,
  catalogSlugs,
  isCatalogDestination,
} from '../../../core/deploy/catalog-function.ts';
import { plan } from '../../../core/plan.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { settingsFile } from '../../../scripts/scale-table.ts';

// Parsed once: checked settings are deep-frozen, so every test may share them.
let parsed: Settings | undefined;
const example = () =>
  (parsed ??= settingsFile(join(import.meta.dirname, '../../../environments/example.yaml')));
const catalogue = (id: string, slug: string, secret?: string, enabled?: boolean): Destination => ({
  id,
  type: 'segment_action',
  destination: slug,
  actions: [{ action: 'trackEvent' }],
  ...(secret ? { secrets: { api_key: secret } } : {}),
  ...(enabled === undefined ? {} : { enabled }),
});
const withDestinations = (s: Settings, ...d: Destination[]): Settings => ({
  ...s,
  destinations: [...(s.destinations ?? []), ...d],
});

describe('deploy: forward-catalog (catalogue destinations)', () => {
  it('serves segment_action destinations only, and carries each enabled one’s folder once, sorted', () => {
    assert.equal(isCatalogDestination({ type: 'segment_action' }), true);
    assert.equal(isCatalogDestination({ type: 'webhook' }), false);
    const s = withDestinations(
      example(),
      catalogue('k1', 'klaviyo'),
      catalogue('slack', 'slack'),
      catalogue('k2', 'klaviyo'),
      catalogue('off', 'braze', undefined, false),
    );
    assert.deepEqual(
      catalogDestinations(s).map((d) => d.id),
      ['k1', 'slack', 'k2'],
    );
    assert.deepEqual(catalogSlugs(s), ['klaviyo', 'slack']);
    assert.deepEqual(
      catalogSlugs({ destinations: [{ id: 'x', type: 'segment_action', destination: '../etc' }] }),
      [],
    );
    assert.deepEqual(catalogSlugs(example()), []);
  });

  it('plan(): no forward-catalog without a catalogue destination', () => {
    const p = plan(example());
    assert.deepEqual(
      p.functions.map((f) => f.name),
      ['store', 'forward', 'schedule'],
    );
    assert.ok(p.subscriptions.every((s) => s.push?.function !== CATALOG_FUNCTION));
    assert.ok(!p.requestLogs.services.includes(CATALOG_FUNCTION));
  });

  it('plan(): with one, forward-catalog takes its subscriptions and secrets; forward keeps the rest, sized as before', () => {
    const before = plan(example());
    const p = plan(withDestinations(example(), catalogue('klaviyo', 'klaviyo', 'klaviyo-key')));
    const fn = p.functions.find((f) => f.name === CATALOG_FUNCTION);
    assert.ok(fn);
    assert.equal(fn.entryPoint, CATALOG_ENTRY_POINT);
    assert.equal(fn.billing, 'request');
    assert.equal(fn.service, CATALOG_FUNCTION);
    assert.equal(fn.sizing.memory, CATALOG_DEFAULT_MEMORY);
    assert.equal(fn.sizing.min_instances, 0);
    assert.deepEqual(fn.secrets, ['klaviyo-key']);
    assert.deepEqual(fn.triggers, ['deliveries-klaviyo-push', 'deliveries-klaviyo-dead-letter-ledger']);
    const sub = p.subscriptions.find((s) => s.name === 'deliveries-klaviyo-push');
    assert.equal(sub?.push?.function, CATALOG_FUNCTION);
    assert.equal(sub?.topic, 'deliveries-klaviyo');
    const forward = p.functions.find((f) => f.name === 'forward');
    const forwardBefore = before.functions.find((f) => f.name === 'forward');
    assert.deepEqual(forward, forwardBefore, 'forward: the same triggers, secrets and sizing');
    assert.ok(!forward?.secrets.includes('klaviyo-key'));
    assert.ok(p.secrets.includes('klaviyo-key'), 'the secret is declared');
    assert.ok(p.requestLogs.services.includes(CATALOG_FUNCTION));
  });

  it('plan(): an OAuth destination’s oauth2 connection’s secrets are read by forward-catalog (issue #78)', () => {
    const sheets: Destination = {
      id: 'sheets',
      type: 'segment_action',
      destination: 'google-sheets',
      connection: 'google',
      actions: [{ action: 'postSheet', when: ['purchase'] }],
    };
    const p = plan({
      ...withDestinations(example(), sheets),
      connections: [
        {
          id: 'google',
          type: 'oauth2',
          secrets: { client_id: 'G_ID', client_secret: 'G_SECRET', refresh_token: 'G_RT' },
        },
      ],
    });
    const fn = p.functions.find((f) => f.name === CATALOG_FUNCTION);
    assert.deepEqual(fn?.secrets, ['G_ID', 'G_RT', 'G_SECRET']);
    for (const other of ['forward', 'schedule'])
      assert.ok(!p.functions.find((f) => f.name === other)?.secrets.includes('G_RT'), other);
  });

  it('the bill: deliveries split between forward and forward-catalog as the destinations do; idle costs it nothing', () => {
    const s = withDestinations(example(), catalogue('klaviyo', 'klaviyo', 'klaviyo-key'));
    const p = plan(s);
    const shape = trafficShape(s, p.destinations.length);
    const w = workloadsOf(p, shape);
    const perEvent = (role: string) => w.find((x) => x.role === role)?.requestsPerEvent ?? 0;
    // Each delivery is a push, and the stated share of them is pushed again (retries, copies).
    const pushes = shape.destinationsPerEvent * (1 + CLAIM_RETRY_SHARE);
    assert.ok(Math.abs(perEvent(CATALOG_FUNCTION) - pushes / 5) < 1e-12);
    assert.ok(Math.abs(perEvent('forward') - (pushes * 4) / 5) < 1e-12);
    const line = (scenario: 'idle' | 'busy') =>
      monthlyBill(p, scenario, shape).items.find((i) => i.item.startsWith(`${CATALOG_FUNCTION} (`));
    assert.equal(line('idle')?.monthly, 0);
    assert.ok((line('busy')?.monthly ?? 0) > 0);
    // Without one, forward takes every delivery, as before.
    const plain = plan(example());
    assert.equal(
      workloadsOf(plain, trafficShape(example(), plain.destinations.length)).find((x) => x.role === 'forward')
        ?.requestsPerEvent,
      pushes,
    );
  });

  it('the access table: forward-catalog’s rows only where it runs', () => {
    assert.ok(!accessNeeds(plan(example()), example()).some((n) => n.who === CATALOG_FUNCTION));
    const s = withDestinations(example(), catalogue('klaviyo', 'klaviyo', 'klaviyo-key'));
    const rows = accessNeeds(plan(s), s).filter((n) => n.who === CATALOG_FUNCTION && !n.denied);
    assert.deepEqual([...new Set(rows.map((n) => n.permission))].sort(), [
      // The ledger, written only: no query job (the send-once claim says what was delivered).
      'bigquery.tables.updateData',
      // Its deliveries' send-once claims (adapters/firestore-claims.ts).
      'datastore.entities.create',
      'datastore.entities.delete',
      'datastore.entities.get',
      'datastore.entities.update',
      // Its delivery metrics to Cloud Monitoring (adapters/metrics.ts), as forward's.
      'monitoring.timeSeries.create',
      'secretmanager.versions.access',
      'storage.objects.get',
      // Its spans to Cloud Trace (adapters/tracing.ts), as forward's.
      'telemetry.traces.write',
    ]);
  });
});
