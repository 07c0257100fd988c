/**
 * Reddit Conversions API v3 (docs/platforms.md, Reddit): Reddit's e-mail rule for every domain
 * (the briefing's published example verbatim), tracking types with CUSTOM for the rest, times in
 * milliseconds under 7 days, the click id and _rdt_uuid in clear, `test_id` at the data level in
 * test mode, limited data use; and the strict stand-in.
 */
import assert from 'node:assert/strict';
import { redditEmail } from '../../../core/linkage/transforms.ts';
import type { DriverContext, Prepared } from '../../../core/platforms/driver.ts';
import { redditDriver } from '../../../core/platforms/reddit/index.ts';
import { checkSettings } from '../../../core/settings.ts';
import { startRedditReceiver } from '../../../local/platforms/index.ts';
import type { Destination } from '../../../schemas/settings.ts';
import { NOW, storedEvent } from '../linkage/sample-events.ts';

const DESTINATION: Destination = {
  id: 'reddit',
  type: 'reddit_capi',
  config: { pixel_id: 'a2_pixel' },
  secrets: { access_token: 'REDDIT_TOKEN' },
};
const ctx = (destination: Destination = DESTINATION): DriverContext => ({
  destination,
  secrets: { access_token: 'rdt-token' },
  now: NOW,
});
const body = (p: Prepared) => {
  assert.ok(p.ok, p.ok ? '' : p.reason);
  return JSON.parse(String(p.request.body)) as {
    data: { events: Record<string, unknown>[]; test_id?: string };
  };
};

describe('Reddit Conversions API v3', () => {
  it("e-mail by Reddit's rule for every domain: the briefing's example Al.ice$+Apple@Example.Com → alice@example.com → ff8d9819…d976", () => {
    assert.equal(redditEmail('Al.ice$+Apple@Example.Com'), 'alice@example.com');
    const e = body(
      redditDriver.prepare({ ...storedEvent('lead'), user: { email: 'Al.ice$+Apple@Example.Com' } }, ctx()),
    ).data.events[0];
    const hashed = (e?.['user'] as Record<string, string> | undefined)?.['email'] ?? '';
    assert.ok(hashed.startsWith('ff8d9819') && hashed.endsWith('d976'), hashed);
  });

  it('a purchase is PURCHASE with the event id as conversion_id, ms time, WEBSITE, the click id and uuid in clear', () => {
    const event = { ...storedEvent('purchase'), campaign: { rdt_cid: 'cid-1', rdt_uuid: 'uuid-1' } };
    const e = body(redditDriver.prepare(event, ctx())).data.events[0] as Record<string, unknown>;
    assert.deepEqual(e['type'], { tracking_type: 'PURCHASE' });
    assert.equal(e['event_at'], Date.parse('2024-11-16T07:17:34.567Z'));
    assert.equal(e['action_source'], 'WEBSITE');
    assert.equal(e['click_id'], 'cid-1');
    assert.equal((e['metadata'] as Record<string, unknown>)['conversion_id'], event.event_id);
    assert.equal((e['user'] as Record<string, unknown>)['uuid'], 'uuid-1');
    assert.match(String((e['user'] as Record<string, unknown>)['ip_address']), /^[a-f0-9]{64}$/);
  });

  it('an event without a Reddit type is CUSTOM with its name; test mode sends test_id at the data level', () => {
    const d = { ...DESTINATION, test_mode: true, test_event_code: 't2_test' };
    const b = body(redditDriver.prepare(storedEvent('begin_checkout'), ctx(d)));
    assert.deepEqual(b.data.events[0]?.['type'], {
      tracking_type: 'CUSTOM',
      custom_event_name: 'begin_checkout',
    });
    assert.equal(b.data.test_id, 't2_test');
  });

  it('the settings check wants the pixel id, and a test id when test mode is on', () => {
    const base = { name: 'shop', project: 'shop-project', region: 'europe-west1' };
    const check = (d: Record<string, unknown>) =>
      JSON.stringify(checkSettings({ ...base, destinations: [{ id: 'r', type: 'reddit_capi', ...d }] }));
    assert.match(check({ config: {} }), /pixel_id/);
    const p = redditDriver.prepare(storedEvent('lead'), ctx({ ...DESTINATION, test_mode: true }));
    assert.ok(!p.ok && /test_mode needs test_event_code/.test(p.reason));
  });

  it('limited data use becomes data_processing_options LDU; an event over 7 days old is rejected', () => {
    const ldu: Destination = { ...DESTINATION, limited_data_use: 'always' };
    const e = body(redditDriver.prepare(storedEvent('lead'), ctx(ldu))).data.events[0];
    const options = (e?.['user'] as Record<string, unknown> | undefined)?.['data_processing_options'];
    const old = redditDriver.prepare(
      { ...storedEvent('lead'), event_time: new Date(NOW.getTime() - 8 * 86_400_000).toISOString() },
      ctx(),
    );
    assert.ok(!old.ok && /more than 7 days old/.test(old.reason));
    assert.deepEqual(options, { modes: ['LDU'] });
  });

  it("the stand-in takes what the driver sends and refuses Reddit's way (invalid action_source: web, unknown field)", async () => {
    const standIn = await startRedditReceiver({ accessToken: 'rdt-token', now: () => NOW });
    try {
      const p = redditDriver.prepare(storedEvent('purchase'), ctx({ ...DESTINATION, base_url: standIn.url }));
      assert.ok(p.ok);
      const post = (b: unknown) =>
        fetch(p.request.url, { method: 'POST', headers: p.request.headers, body: JSON.stringify(b) });
      const sent = JSON.parse(String(p.request.body)) as { data: { events: Record<string, unknown>[] } };
      assert.equal((await post(sent)).status, 200);
      const web = await post({ data: { events: [{ ...sent.data.events[0], action_source: 'web' }] } });
      assert.equal(web.status, 400);
      assert.deepEqual(await web.json(), {
        error: { code: 'INVALID_REQUEST', message: 'invalid action_source: web' },
      });
      const misplaced = await post({ data: { events: [{ ...sent.data.events[0], test_id: 'x' }] } });
      assert.match(JSON.stringify(await misplaced.json()), /unknown field test_id/);
      const outcome = redditDriver.interpret(
        {
          kind: 'response',
          status: 400,
          headers: {},
          body: JSON.stringify({ error: { code: 'INVALID_REQUEST', message: 'invalid action_source: web' } }),
        },
        ctx(),
      );
      assert.deepEqual(outcome, {
        status: 'rejected',
        reason: 'reddit 400 INVALID_REQUEST: invalid action_source: web',
        httpStatus: 400,
      });
    } finally {
      await standIn.close();
    }
  });
});
