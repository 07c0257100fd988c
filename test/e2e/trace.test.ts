/**
 * A trace per event (#81), through the running local environment (`eventbus start`): a purchase
 * POSTed with a producer's `traceparent` becomes one trace in the local OTLP receiver, with the
 * gateway's span under the producer's, the store's under the gateway's, one `store.decide` per
 * destination under the store's and each sent destination's `forward` span under its decision;
 * the webhook stand-in received the same trace id in its `traceparent`; `events.trace_id` and
 * every ledger row's `trace_id` hold it; and none of the identifiers the test sent appears in
 * any exported span. The receiver enforces Cloud Trace's grants: the spans reach it on each
 * workload's own port, the studio reads them, `store` may not and a call without credentials is 401.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { localToken } from '../../local/access-file.ts';
import type { ReceivedSpan } from '../../local/receiver/traces.ts';
import { stopLocalCli } from '../support/local-start.ts';
import { type PlatformEnvironment, startWithDestinations } from '../support/platform-e2e.ts';
import { until } from '../support/until.ts';

describe('end to end: a trace per event', function () {
  this.timeout(240_000);
  let env: PlatformEnvironment;
  before(async () => {
    env = await startWithDestinations('eventbus-trace-', '');
  });
  after(() => stopLocalCli(env));

  it('a POST with a traceparent is one trace: gateway, store, a decision per destination, forward per sent one', async () => {
    const traceId = randomBytes(16).toString('hex');
    const producerSpan = randomBytes(8).toString('hex');
    const run = `t${Date.now().toString(36)}`;
    // Every identifier this test sends: none may appear in an exported span.
    const sent = {
      event_id: `${run}-purchase`,
      user_id: `user-${run}`,
      email: `jane.${run}@example.com`,
      phone: '+33612345678',
      transaction_id: `T-${run}`,
      ip: '203.0.113.77',
    };
    const token = readFileSync(join(env.dataDir, 'dev-token'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${env.ports['gateway']}/v1/topics/purchase`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${producerSpan}-01`,
        tracestate: 'producer=1',
        // The producer asks for its trace: the flag is followed (gateway/tracing.ts).
        'x-eventbus-trace': '1',
      },
      body: JSON.stringify({
        event_id: sent.event_id,
        user_id: sent.user_id,
        user: { email: sent.email, phone: sent.phone },
        device: { ip: sent.ip },
        transaction_id: sent.transaction_id,
        value: 42.5,
        currency: 'EUR',
        consent: {
          ads: 'granted',
          ad_user_data: 'granted',
          ad_personalization: 'granted',
          analytics: 'granted',
        },
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());

    const destinations = ['webhook', 'meta', 'ga4', 'tiktok'];
    const ledger = await until(
      'a final ledger row for every destination',
      async () => {
        const [rows] = await env.bigquery.query({
          query: `SELECT destination, status, trace_id FROM \`local-project.events.deliveries\` WHERE event_id = '${sent.event_id}' AND status IN ('delivered', 'rejected', 'skipped')`,
        });
        const got = rows as { destination: string; status: string; trace_id: string | null }[];
        return destinations.every((d) => got.some((r) => r.destination === d)) ? got : undefined;
      },
      120_000,
    );
    for (const row of ledger) assert.equal(row.trace_id, traceId, `${row.destination}'s ledger row`);
    const [events] = await env.bigquery.query({
      query: `SELECT trace_id FROM \`local-project.events.events\` WHERE event_id = '${sent.event_id}'`,
    });
    assert.deepEqual(events, [{ trace_id: traceId }]);

    const sentTo = ledger.filter((r) => r.status !== 'skipped').map((r) => r.destination);
    assert.ok(sentTo.includes('webhook'), JSON.stringify(ledger));
    const receiver = `http://127.0.0.1:${env.ports['receiver']}`;
    const as = (who: string) => ({
      headers: { authorization: `Bearer ${localToken(env.dataDir, who, 'local-project')}` },
    });
    const spans = await until(
      'the trace in the local OTLP receiver',
      async () => {
        const r = await fetch(`${receiver}/traces.json?trace_id=${traceId}`, as('studio'));
        const { spans } = (await r.json()) as { spans: ReceivedSpan[] };
        const forwards = spans.filter((s) => s.name === 'forward');
        return forwards.length >= sentTo.length && spans.some((s) => s.name === 'store') ? spans : undefined;
      },
      60_000,
    );
    const one = (name: string, where: (s: ReceivedSpan) => boolean = () => true) => {
      const found = spans.filter((s) => s.name === name && where(s));
      assert.equal(found.length, 1, `${name}: ${JSON.stringify(found)}`);
      return found[0] as ReceivedSpan;
    };
    const gateway = one('gateway.receive');
    assert.equal(gateway.parentSpanId, producerSpan);
    assert.equal(gateway.service, 'gateway');
    for (const step of ['gateway.auth', 'gateway.validate', 'gateway.publish'])
      assert.equal(one(step).parentSpanId, gateway.spanId, step);
    const store = one('store');
    assert.equal(store.parentSpanId, gateway.spanId);
    assert.equal(store.service, 'store');
    assert.equal(
      one('store.write', (s) => s.attributes['eventbus.table'] === 'events').parentSpanId,
      store.spanId,
    );
    for (const d of destinations) {
      const decide = one('store.decide', (s) => s.attributes['eventbus.destination'] === d);
      assert.equal(decide.parentSpanId, store.spanId, d);
      const verdict = sentTo.includes(d) ? 'send' : 'skip';
      assert.equal(decide.attributes['eventbus.verdict'], verdict, d);
      if (verdict === 'skip') continue;
      const forward = one('forward', (s) => s.attributes['eventbus.destination'] === d);
      assert.equal(forward.parentSpanId, decide.spanId, d);
      assert.equal(forward.service, 'forward');
      // A cold instance's first call to a destination follows an eventless probe (a HEAD): its span too.
      const head = (s: ReceivedSpan) => s.attributes['http.request.method'] === 'HEAD';
      const probes = spans.filter(
        (s) => s.name === 'forward.call' && s.parentSpanId === forward.spanId && head(s),
      );
      assert.ok(probes.length <= 1, `${d}: ${probes.length} probes`);
      const call = one('forward.call', (s) => s.parentSpanId === forward.spanId && !head(s));
      assert.ok(Number(call.attributes['http.response.status_code']) >= 200, d);
    }

    // Cloud Trace's grants: the studio reads the trace through v1, `store` may only write spans, and
    // a call without credentials is 401.
    const v1 = `${receiver}/v1/projects/local-project/traces/${traceId}`;
    assert.equal((await fetch(v1, as('studio'))).status, 200);
    const refused = await fetch(v1, as('store'));
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: { status: string } }).error.status, 'PERMISSION_DENIED');
    assert.equal((await fetch(v1)).status, 401);

    const hooks = await fetch(`${receiver}/received.json`);
    const { received } = (await hooks.json()) as {
      received: { destination: string; eventId?: string; traceparent?: string }[];
    };
    const hook = received.find((r) => r.destination === 'webhook' && r.eventId === sent.event_id);
    assert.ok(hook, 'the webhook stand-in got the event');
    assert.equal(hook.traceparent?.split('-')[1], traceId);
    // Only the webhook is sent the context: the ad platforms get no traceparent.
    assert.ok(received.filter((r) => r.destination !== 'webhook').every((r) => r.traceparent === undefined));

    const exported = JSON.stringify(
      (
        (await (await fetch(`${receiver}/traces.json`, as('studio'))).json()) as { spans: unknown[] }
      ).spans.concat(spans),
    );
    for (const [kind, value] of Object.entries(sent))
      assert.ok(!exported.includes(value), `the exported spans hold the ${kind} the test sent`);
  });
});
