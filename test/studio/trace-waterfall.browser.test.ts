/**
 * An event's trace in the studio (docs/observability.md#reading-a-trace-in-the-studio), through
 * the whole local environment (`npm start`): a purchase POSTed with a sampled `traceparent` goes
 * through the gateway, `store` and `forward`; the live events page lists it, its id links to the
 * debugger's event view, and that view draws the trace as a waterfall read through Cloud Trace
 * API v1 from the receiver — gateway, store and forward bars, with their services, durations and
 * key attributes. A purchase sent with an unsampled `traceparent` shows "no trace recorded" and
 * why. At 1280 and 390 px nothing scrolls sideways. Screenshots go to $SCREENSHOTS.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { localToken } from '../../local/access-file.ts';
import { localInBrowser, pageProblems } from '../support/local-browser.ts';
import { assertNoSeriousAxeViolations, assertNoSidewaysScroll } from '../support/page-checks.ts';
import { until } from '../support/until.ts';

const PURPOSES = ['ads', 'ad_user_data', 'ad_personalization', 'analytics'];

describe('studio: an event’s trace as a waterfall, through the local environment', function () {
  this.timeout(300_000);
  const env = localInBrowser('eventbus-waterfall-');
  const run = Date.now().toString(36);

  const purchase = async (eventId: string, traceparent: string) => {
    const token = readFileSync(join(env.dataDir, 'dev-token'), 'utf8').trim();
    const res = await fetch(`${env.gateway()}/v1/topics/purchase`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        traceparent,
        // The producer asks for its trace: the flag is followed (gateway/tracing.ts).
        'x-eventbus-trace': '1',
      },
      body: JSON.stringify({
        event_id: eventId,
        user_id: `user-${run}`,
        user: { email: `jane.${run}@example.com` },
        transaction_id: `T-${eventId}`,
        value: 42.5,
        currency: 'EUR',
        // Every purpose granted: each destination is sent the event (a forward hop each).
        consent: Object.fromEntries(PURPOSES.map((p) => [p, 'granted'])),
      }),
    });
    assert.equal(res.status, 200, await res.text());
  };
  const page = (path: string) => env.studio().replace('/#token=', `${path}#token=`);
  const shot = (p: Page, name: string) =>
    p.screenshot({ path: join(env.shots, `waterfall-${name}.png`), fullPage: true });

  it('live events link a stored event to the debugger, which draws its trace: gateway, store, forward', async () => {
    const traceId = randomBytes(16).toString('hex');
    const eventId = `${run}-traced`;
    await purchase(eventId, `00-${traceId}-${randomBytes(8).toString('hex')}-01`);
    // The trace whole at the receiver's v1 endpoint (the webhook's forward hop included), read as
    // the studio: the receiver enforces the grant of roles/cloudtrace.user.
    const asStudio = { authorization: `Bearer ${localToken(env.dataDir, 'studio', 'local-project')}` };
    await until(
      'the trace with its forward span at the receiver',
      async () => {
        const r = await fetch(
          `http://127.0.0.1:${env.ports['receiver']}/v1/projects/local-project/traces/${traceId}`,
          { headers: asStudio },
        );
        if (r.status !== 200) return undefined;
        const { spans } = (await r.json()) as { spans: { name: string; labels?: Record<string, string> }[] };
        return spans.some((s) => s.name === 'forward' && s.labels?.['eventbus.destination'] === 'webhook')
          ? true
          : undefined;
      },
      120_000,
      1000,
    );

    const p = await env.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = pageProblems(p);
    await p.goto(page('/live'));
    const link = p.getByRole('link', { name: `Trace of ${eventId} in the debugger` });
    await link.waitFor({ timeout: 60_000 });
    await link.click();
    await p.waitForURL(/\/debugger\?/);
    const waterfall = p.getByRole('list', { name: new RegExp(`^Trace ${traceId}, \\d+ spans$`) });
    await waterfall.waitFor({ timeout: 30_000 });
    for (const [name, service] of [
      ['gateway.receive', 'gateway'],
      ['store', 'store'],
      ['forward', 'forward'],
    ] as const) {
      const row = waterfall.locator(`li[data-span="${name}"]`).first();
      await row.waitFor();
      const text = (await row.textContent()) ?? '';
      assert.ok(text.includes(service), `${name}: ${text}`);
      assert.match(text, /\d ms/, `${name} shows its duration`);
    }
    // Each destination's decision shows its verdict; the webhook's forward its ledger status.
    assert.match((await waterfall.textContent()) ?? '', /verdict send/);
    assert.match(
      (await waterfall.locator('li[data-span="forward"]').first().textContent()) ?? '',
      /status delivered/,
    );
    // Indentation follows parentage: store sits deeper than the gateway's span.
    const indent = async (name: string) =>
      waterfall
        .locator(`li[data-span="${name}"] .span-label`)
        .first()
        .evaluate((e) => Number.parseFloat(getComputedStyle(e).paddingInlineStart));
    assert.ok((await indent('store')) > (await indent('gateway.receive')));
    // No personal value anywhere on the view.
    assert.doesNotMatch((await p.locator('#event-section').textContent()) ?? '', new RegExp(`jane\\.${run}`));
    await assertNoSidewaysScroll(p);
    await assertNoSeriousAxeViolations(p);
    await shot(p, '1280');

    await p.setViewportSize({ width: 390, height: 900 });
    await p.goto(page(`/debugger?event=${encodeURIComponent(eventId)}`));
    await waterfall.waitFor({ timeout: 30_000 });
    await waterfall.locator('li[data-span="forward"]').first().waitFor();
    await assertNoSidewaysScroll(p);
    await shot(p, '390');
    assert.deepEqual(problems, []);
    await p.close();
  });

  it('an unsampled event shows no trace recorded, and why', async () => {
    const eventId = `${run}-unsampled`;
    await purchase(eventId, `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`);
    await until(
      'the unsampled event stored',
      async () => {
        const [rows] = await env.bigquery.query({
          query: `SELECT trace_id FROM \`local-project.events.events\` WHERE event_id = '${eventId}'`,
        });
        return rows.length > 0 ? true : undefined;
      },
      120_000,
      1000,
    );
    const p = await env.browser.newPage({ viewport: { width: 390, height: 900 } });
    const problems = pageProblems(p);
    await p.goto(page(`/debugger?event=${encodeURIComponent(eventId)}`));
    await p.locator('#event-trace .no-trace').waitFor({ timeout: 30_000 });
    assert.match(
      (await p.locator('#event-trace').textContent()) ?? '',
      /No trace recorded: .* was not sampled/,
    );
    await assertNoSidewaysScroll(p);
    await shot(p, 'unsampled-390');
    assert.deepEqual(problems, []);
    await p.close();
  });
});
