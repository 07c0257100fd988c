import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { StoredEvent } from '../../../core/event.ts';
import {
  type NormalizeContext,
  type NormalizedEvent,
  normalizeEvent,
  normalizeOptions,
  parseEventTime,
  parseIp,
  truncateIp,
} from '../../../core/event.ts';
import { exceedsDepth, inspectJson } from '../../../core/json-limits.ts';
import { CATALOGUE, eventNameProblem, lookupEvent } from '../../../schemas/catalogue.ts';
import { RFC3339_PATTERN } from '../../../schemas/context.ts';
import type { Settings } from '../../../schemas/settings.ts';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const base: Settings = { name: 'test', project: 'test-project', region: 'europe-west1' };
const ctxFor = (
  settings: Partial<Settings> = {},
  extra: Partial<NormalizeContext> = {},
): NormalizeContext => ({
  options: normalizeOptions({ ...base, ...settings }),
  now: NOW,
  newId: () => '0190b6a4-0000-7000-8000-000000000000',
  // A browser's request (a write key's): the only sender whose address and user agent are filled.
  client: { sender: 'browser', ip: '198.51.100.23', userAgent: 'test-agent/1.0' },
  ...extra,
});
const ok = (raw: unknown, ctx = ctxFor()) => {
  const r = normalizeEvent(raw, ctx);
  if (!r.ok) assert.fail(`expected valid, got ${JSON.stringify(r.violations)}`);
  return r;
};
const bad = (raw: unknown, ctx = ctxFor()) => {
  const r = normalizeEvent(raw, ctx);
  if (r.ok) assert.fail(`expected violations for ${JSON.stringify(raw)}`);
  return r.violations;
};

// Compile-time check that the canonical event is a StoredEvent (the forward side's contract).
const _compatible: (e: NormalizedEvent) => StoredEvent = (e) => e;

describe('contract: event fixtures', () => {
  const root = join(import.meta.dirname, '../../fixtures/events');
  for (const eventName of readdirSync(root)) {
    for (const kind of ['valid', 'invalid'] as const) {
      const dir = join(root, eventName, kind);
      for (const file of readdirSync(dir)) {
        it(`${eventName}/${kind}/${file} is ${kind}`, () => {
          const raw: unknown = JSON.parse(readFileSync(join(dir, file), 'utf8'));
          const r = normalizeEvent(raw, ctxFor());
          assert.equal(r.ok, kind === 'valid', JSON.stringify(r.ok ? r.event : r.violations));
        });
      }
    }
  }
});

describe('contract: normalizeEvent', () => {
  it('splits top-level context from event data into the canonical nested form', () => {
    const r = ok({
      event_name: 'view_content',
      user_id: 'u1',
      content_name: 'Shoe',
      content_type: 'product',
    });
    assert.deepEqual(r.event, {
      event_name: 'view_content',
      event_id: '0190b6a4-0000-7000-8000-000000000000',
      event_time: '2026-01-01T00:00:00.000Z',
      user_id: 'u1',
      device: { ip: '198.51.100.23', user_agent: 'test-agent/1.0' },
      event_data: { content_name: 'Shoe', content_type: 'product' },
    });
    assert.deepEqual(Object.keys(r.event).at(-1), 'event_data');
    assert.equal(r.version, 1);
    assert.equal(r.known, true);
  });

  it('treats a nested event_data object like top-level fields', () => {
    const flat = ok({ event_name: 'view_content', content_name: 'S', content_type: 'p' });
    const nested = ok({ event_name: 'view_content', event_data: { content_name: 'S', content_type: 'p' } });
    assert.deepEqual(flat.event, nested.event);
  });

  it('is a fixpoint: normalising a canonical event again changes nothing', () => {
    const once = ok({
      event_name: 'purchase',
      transaction_id: 't',
      value: 1,
      currency: 'EUR',
      event_time: 1767139200000,
    });
    const twice = ok(JSON.parse(JSON.stringify(once.event)), ctxFor({}, { newId: () => 'other' }));
    assert.deepEqual(twice.event, once.event);
  });

  it('names each bad field with the batch prefix', () => {
    const v = bad(
      { event_name: 'view_content', content_type: 5, user: { email: 1 } },
      ctxFor({}, { prefix: '[2]' }),
    );
    assert.deepEqual(v.map((x) => x.field).sort(), [
      '[2].content_name',
      '[2].content_type',
      '[2].user.email',
    ]);
  });

  it('reports data errors under event_data when the field came nested', () => {
    const v = bad({ event_name: 'view_content', event_data: { content_name: 1, content_type: 'p' } });
    assert.deepEqual(
      v.map((x) => x.field),
      ['event_data.content_name'],
    );
  });

  it('takes event_data keys named like Object.prototype members as data, not as duplicates', () => {
    // `key in {}` is true for these inherited names; only own keys may count as given twice.
    const names = ['valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf', 'toLocaleString'];
    for (const name of names) {
      const r = ok({ event_name: 'my_event', event_data: { [name]: 1 } });
      assert.deepEqual(r.event.event_data, { [name]: 1 }, name);
    }
    const top = ok({ event_name: 'my_event', valueOf: 1, event_data: { toString: 2 } });
    assert.deepEqual(top.event.event_data, { valueOf: 1, toString: 2 });
    // A real duplicate is still one.
    const twice = bad({ event_name: 'my_event', valueOf: 1, event_data: { valueOf: 2 } });
    assert.deepEqual(
      twice.map((v) => v.field),
      ['event_data.valueOf'],
    );
  });

  it('rejects non-objects, missing event_name and names breaking the rule', () => {
    assert.equal(bad([1])[0]?.field, '(root)');
    assert.equal(bad(null, ctxFor({}, { prefix: '[0]' }))[0]?.field, '[0]');
    assert.deepEqual(
      bad({ content_name: 'x' }).map((v) => v.field),
      ['event_name'],
    );
    for (const name of ['Page_View', '1abc', 'a'.repeat(41), 'ga_thing', 'google_x', 'firebase_y', 'a-b']) {
      assert.deepEqual(
        bad({ event_name: name }).map((v) => v.field),
        ['event_name'],
        name,
      );
    }
  });

  it('stores unknown names by default and rejects them with unknown_events: reject', () => {
    const r = ok({ event_name: 'quote_requested', amount: 3 });
    assert.equal(r.known, false);
    assert.equal(r.version, 0);
    assert.deepEqual(r.event.event_data, { amount: 3 });
    assert.match(
      bad({ event_name: 'quote_requested' }, ctxFor({ unknown_events: 'reject' }))[0]?.description ?? '',
      /catalogue/,
    );
  });

  it('takes the event name from the path alias and refuses a contradicting one', () => {
    assert.equal(
      ok({ content_name: 'a', content_type: 'b' }, ctxFor({}, { pathEventName: 'view_content' })).event
        .event_name,
      'view_content',
    );
    assert.match(
      bad({ event_name: 'search', search_term: 'x' }, ctxFor({}, { pathEventName: 'view_content' }))[0]
        ?.description ?? '',
      /path/,
    );
  });

  it('accepts RFC 3339 and epoch milliseconds within the window, and nothing else', () => {
    const t = (event_time: unknown) => normalizeEvent({ event_name: 'page_view', event_time }, ctxFor());
    const time = (v: unknown) => {
      const r = t(v);
      return r.ok ? r.event.event_time : undefined;
    };
    assert.equal(time('2025-12-31T23:00:00.123456+01:00'), '2025-12-31T22:00:00.123Z');
    assert.equal(time(1767225600000), '2026-01-01T00:00:00.000Z');
    assert.equal(time('2026-01-01T23:59:59Z'), '2026-01-01T23:59:59.000Z');
    for (const v of [
      '2026-01-02T00:00:01Z',
      '2020-12-31T00:00:00Z',
      1767225600,
      '2025-02-29T00:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-06-01 10:00:00',
      '2025-06-01T10:00:00',
      -1,
      1.5,
      '2025-06-01T10:00:00+24:00',
      true,
    ]) {
      assert.equal(time(v), undefined, String(v));
    }
  });

  it('keeps the event_time window configurable and skippable', () => {
    const old = { event_name: 'page_view', event_time: '2010-01-01T00:00:00Z' };
    assert.equal(normalizeEvent(old, ctxFor()).ok, false);
    assert.equal(normalizeEvent(old, ctxFor({}, { checkWindow: false })).ok, true);
    assert.equal(normalizeEvent(old, ctxFor({ limits: { event_time_past_days: 9000 } })).ok, true);
  });

  it('fills device.ip and user_agent per settings: full, truncated, none', () => {
    const dev = (
      settings: Partial<Settings>,
      raw: Record<string, unknown> = {},
      client?: NormalizeContext['client'],
    ) => ok({ event_name: 'page_view', ...raw }, ctxFor(settings, client ? { client } : {})).event.device;
    assert.deepEqual(dev({}), { ip: '198.51.100.23', user_agent: 'test-agent/1.0' });
    assert.deepEqual(dev({ producers: { collect_ip: 'truncated', collect_user_agent: false } }), {
      ip: '198.51.100.0',
    });
    assert.equal(dev({ producers: { collect_ip: 'none', collect_user_agent: false } }), undefined);
    assert.deepEqual(
      dev({ producers: { collect_ip: 'none' } }, { device: { ip: '1.2.3.4', locale: 'de' } }),
      { locale: 'de', user_agent: 'test-agent/1.0' },
    );
    assert.deepEqual(
      dev({ producers: { collect_ip: 'truncated' } }, {}, { sender: 'browser', ip: '2001:db8:abcd:12::1' }),
      { ip: '2001:db8:abcd::' },
    );
    // A server's own address and user agent are never filled; what it sends is kept.
    const server = { sender: 'server', ip: '198.51.100.23', userAgent: 'node' } as const;
    assert.deepEqual(dev({}, { device: { ip: '203.0.113.9', user_agent: 'given' } }, server), {
      ip: '203.0.113.9',
      user_agent: 'given',
    });
    assert.deepEqual(
      bad({ event_name: 'page_view', device: { ip: 'not-an-ip' } }, ctxFor({}, { client: server })).map(
        (v) => v.field,
      ),
      ['device.ip'],
    );
  });

  it('rejects prototype keys, lone surrogates and infinite numbers anywhere', () => {
    assert.equal(
      bad(JSON.parse('{"event_name":"x","a":{"b":[{"__proto__":{"polluted":1}}]}}'))[0]?.field,
      'a.b[0].__proto__',
    );
    assert.equal(bad(JSON.parse('{"event_name":"x","constructor":{}}'))[0]?.field, 'constructor');
    assert.equal(bad(JSON.parse('{"event_name":"x","s":"\\ud800"}'))[0]?.field, 's');
    assert.equal(bad(JSON.parse('{"event_name":"x","n":1e400}'))[0]?.field, 'n');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});

describe('contract: catalogue, time and IP helpers', () => {
  it('has every standard event, versioned', () => {
    assert.deepEqual(
      CATALOGUE.map((e) => e.name),
      [
        'page_view',
        'view_content',
        'search',
        'add_to_cart',
        'begin_checkout',
        'add_payment_info',
        'purchase',
        'lead',
        'sign_up',
        'subscribe',
        'contact',
      ],
    );
    for (const e of CATALOGUE) assert.ok(e.version >= 1 && lookupEvent(e.name) === e);
    assert.equal(lookupEvent('quote_requested'), undefined);
    assert.equal(eventNameProblem('quote_requested'), undefined);
  });

  it('parses RFC 3339 offsets and fractions', () => {
    assert.equal(parseEventTime('2024-02-29T12:00:00-05:30'), Date.parse('2024-02-29T17:30:00Z'));
    assert.equal(parseEventTime('2024-02-29t12:00:00.9z'), Date.parse('2024-02-29T12:00:00.900Z'));
    assert.equal(parseEventTime('0099-01-01T00:00:00Z'), Date.parse('0099-01-01T00:00:00.000Z'));
  });

  it('reads every RFC 3339 text as its first definition did (Date-based), real instants or not', () => {
    /** The definition parseEventTime had before it read digits in place. */
    const reference = (value: string): number | undefined => {
      if (!new RegExp(RFC3339_PATTERN).test(value)) return undefined;
      const [y, mo, d, h, mi, s] = [0, 5, 8, 11, 14, 17].map((i) =>
        Number(value.slice(i, i + (i === 0 ? 4 : 2))),
      );
      const fracMatch = /\.(\d+)/.exec(value.slice(19));
      const ms = fracMatch ? Number((fracMatch[1] as string).slice(0, 3).padEnd(3, '0')) : 0;
      const zone = value.slice(19 + (fracMatch ? (fracMatch[0] as string).length : 0));
      let offsetMin = 0;
      if (zone !== 'Z' && zone !== 'z') {
        const oh = Number(zone.slice(1, 3));
        const om = Number(zone.slice(4, 6));
        if (oh > 23 || om > 59) return undefined;
        offsetMin = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
      }
      const [Y, M, D, H, Mi, S] = [y, mo, d, h, mi, s] as [number, number, number, number, number, number];
      if (M < 1 || M > 12 || D < 1 || H > 23 || Mi > 59 || S > 59) return undefined;
      const date = new Date(0);
      date.setUTCFullYear(Y, M - 1, D);
      if (date.getUTCDate() !== D) return undefined;
      date.setUTCHours(H, Mi, S, ms);
      return date.getTime() - offsetMin * 60_000;
    };
    const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    const text = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')),
        two(13),
        two(32),
        fc.constantFrom('T', 't'),
        two(24),
        two(60),
        two(60),
        fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
        fc.oneof(
          fc.constantFrom('Z', 'z'),
          fc.tuple(fc.constantFrom('+', '-'), two(25), two(60)).map(([s, h, m]) => `${s}${h}:${m}`),
        ),
      )
      .map(
        ([y, mo, d, t, h, mi, s, f, z]) =>
          `${y}-${mo}-${d}${t}${h}:${mi}:${s}${f === undefined ? '' : `.${f}`}${z}`,
      );
    fc.assert(
      fc.property(text, (value) => {
        assert.equal(parseEventTime(value), reference(value), value);
      }),
      { numRuns: 20_000 },
    );
    for (const value of [
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2000-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '0000-02-29T23:59:59.999999999-23:59',
      '2024-02-29T00:00:60Z',
      '2024-02-29 00:00:00Z',
    ])
      assert.equal(parseEventTime(value), reference(value), value);
  });

  it('parses and truncates IPv4, IPv6 and IPv4-mapped addresses', () => {
    const tr = (s: string) => {
      const ip = parseIp(s);
      return ip ? truncateIp(ip) : undefined;
    };
    assert.equal(tr('10.20.30.40'), '10.20.30.0');
    assert.equal(tr('::ffff:10.20.30.40'), '10.20.30.0');
    assert.equal(tr('2001:0db8:85a3:0000:0000:8a2e:0370:7334'), '2001:db8:85a3::');
    assert.equal(tr('::1'), '::');
    for (const s of ['256.1.1.1', '1.2.3', '1::2::3', '12345::', 'x', '1:2:3:4:5:6:7:8:9', ''])
      assert.equal(parseIp(s), undefined, s);
  });

  it('finds nesting deeper than the limit on raw bytes, ignoring brackets in strings', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    assert.equal(exceedsDepth(enc(`${'['.repeat(32)}${']'.repeat(32)}`), 32), false);
    assert.equal(exceedsDepth(enc(`${'['.repeat(33)}${']'.repeat(33)}`), 32), true);
    assert.equal(exceedsDepth(enc(`{"a":"${'['.repeat(100)}\\"{{{{"}`), 2), false);
    assert.equal(exceedsDepth(enc('['.repeat(100_000)), 32), true);
    assert.equal(inspectJson({ a: [1, 'x', { b: null }] }), undefined);
  });
});
