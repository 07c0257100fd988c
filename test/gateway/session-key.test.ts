/**
 * A cookieless page's session key (gateway/session-key.ts): one per visitor, site and UTC day,
 * the same on every instance with the same base; and on a gateway, `?cookieless=1` from a page
 * fills session_id (a server field), sets no cookie whatever consent says, and leaves other
 * events alone.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { SERVER_FIELDS_ATTRIBUTE } from '../../core/event.ts';
import { sessionKeys } from '../../gateway/session-key.ts';
import { baseSettings, FakePublisher, ORIGIN, startTestGateway } from './support.ts';

const DAY = Date.UTC(2026, 10, 25, 9);
const UA = 'Mozilla/5.0 test';

describe('gateway: a cookieless page’s session key', () => {
  it('is one per visitor, site and day, the same across instances with one base', () => {
    const a = sessionKeys('base-1');
    const key = a(DAY, '203.0.113.5', UA, ORIGIN);
    assert.match(key, /^ckl_[\w-]{22}$/);
    assert.equal(a(DAY + 10 * 3_600_000, '203.0.113.5', UA, ORIGIN), key, 'later the same UTC day');
    assert.equal(sessionKeys('base-1')(DAY, '203.0.113.5', UA, ORIGIN), key, 'another instance, same base');
    assert.notEqual(a(DAY + 86_400_000, '203.0.113.5', UA, ORIGIN), key, 'the next day');
    assert.notEqual(a(DAY, '203.0.113.6', UA, ORIGIN), key, 'another address');
    assert.notEqual(a(DAY, '203.0.113.5', `${UA} 2`, ORIGIN), key, 'another browser');
    assert.notEqual(a(DAY, '203.0.113.5', UA, 'https://other.example'), key, 'another site');
    assert.notEqual(sessionKeys('base-2')(DAY, '203.0.113.5', UA, ORIGIN), key, 'another base');
    assert.notEqual(sessionKeys(undefined)(DAY, '203.0.113.5', UA, ORIGIN), key, 'a random base');
  });

  it('on a gateway: ?cookieless=1 fills session_id, sets no cookie, and only for that page', async () => {
    const pub = new FakePublisher();
    const g = await startTestGateway({ publisher: pub, settings: baseSettings() });
    try {
      const post = (query: string) =>
        new Promise<{ status: number; cookies: string[] | undefined }>((resolve, reject) => {
          const r = request(
            `${g.url}/v1/topics/events?key=${g.key}${query}`,
            { method: 'POST', headers: { 'content-type': 'text/plain', origin: ORIGIN, 'user-agent': UA } },
            (res) => {
              res.resume();
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] }),
              );
            },
          );
          r.on('error', reject);
          r.end(
            JSON.stringify([
              { event_name: 'page_view', anonymous_id: 'page-1', consent: { analytics: 'granted' } },
            ]),
          );
        });
      const last = () => {
        const m = pub.calls.at(-1)?.messages[0];
        return {
          event: JSON.parse(m?.data.toString() ?? '{}'),
          fields: m?.attributes[SERVER_FIELDS_ATTRIBUTE],
        };
      };
      const first = await post('&cookieless=1');
      assert.equal(first.status, 200);
      assert.equal(first.cookies, undefined, 'no cookie, storage granted or not');
      const one = last();
      assert.match(one.event.session_id, /^ckl_/);
      assert.equal(one.event.anonymous_id, 'page-1', 'the page’s own id is kept');
      assert.match(one.fields ?? '', /(^|,)session_id(,|$)/);
      await post('&cookieless=1');
      assert.equal(last().event.session_id, one.event.session_id, 'the next page of the visit');
      const stored = await post('');
      assert.equal(stored.cookies?.length, 1);
      assert.equal(last().event.session_id, undefined);
    } finally {
      await g.close();
    }
  });
});
