/**
 * JSON inside a value (docs/translators.md, "JSON inside a value"): a `cases.when` looks inside
 * Snowplow's `ue_px` and `cx` (base64url JSON) and inside Unbounce's `data.json` form field with
 * the same transforms a field uses, and fields map what is inside. The project's fixtures are
 * written from the vendors' public docs (test/fixtures/sources/embedded/SOURCES.md). The `json`
 * transform is bounded as a body is: too long, too deep, a `__proto__` key are refused.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { translate } from '../../../core/translate/index.ts';
import { translatorViolations } from '../../../core/translate/spec.ts';
import {
  applyTransform,
  EMBEDDED_JSON_MAX_CHARS,
  EMBEDDED_JSON_MAX_DEPTH,
} from '../../../core/translate/transforms.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';

const fixture = (file: string) =>
  readFileSync(new URL(`../../fixtures/sources/embedded/${file}`, import.meta.url));

const INSIDE_UE = ['base64', 'json'] as const;

const SNOWPLOW = {
  event: 'snowplow_event',
  format: { type: 'json', records: 'data' },
  events: ['sign_up', 'page_view', 'snowplow_event'],
  fields: [
    { target: 'event_id', source: 'eid' },
    {
      target: 'event_name',
      source: 'e',
      transforms: [{ lookup: { pv: 'page_view' }, otherwise: 'snowplow_event' }],
    },
    { target: 'tier', source: 'cx', transforms: [...INSIDE_UE, { path: 'data.0.data.tier' }] },
  ],
  cases: [
    {
      when: {
        source: 'ue_px',
        transforms: [...INSIDE_UE, { path: 'data.schema' }],
        equals: 'iglu:com.acme/signup/jsonschema/1-0-0',
      },
      fields: [
        { target: 'event_name', value: 'sign_up' },
        { target: 'method', source: 'ue_px', transforms: [...INSIDE_UE, { path: 'data.data.plan' }] },
      ],
    },
  ],
} as unknown as TranslatorSpec;

const UNBOUNCE = {
  event: 'generate_lead',
  format: { type: 'form' },
  events: ['generate_lead', 'sign_up'],
  fields: [
    { target: 'user.email', source: 'data.json', transforms: ['json', { path: 'email.0' }] },
    { target: 'page.url', source: 'page_url' },
  ],
  cases: [
    {
      when: { source: 'data.json', transforms: ['json', { path: 'variant' }], in: ['b', 'c'] },
      fields: [{ target: 'variant', source: 'data.json', transforms: ['json', { path: 'variant' }] }],
    },
  ],
} as unknown as TranslatorSpec;

const run = (spec: TranslatorSpec, body: Uint8Array, contentType: string) => {
  assert.deepEqual(translatorViolations(spec, 'spec'), [], 'the spec is one apply takes');
  const r = translate({ translator: 'x', spec, eventName: spec.event, body, contentType, headers: {} });
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.problems, []);
  return r.rows.map((x) => x.event as Record<string, unknown>);
};

describe('translate: JSON inside a value, in fields and in cases.when', () => {
  it('names a Snowplow self-describing event by the schema inside ue_px, and reads cx', () => {
    const [ue, pv] = run(SNOWPLOW, fixture('snowplow-post-ue-cx.synthetic.json'), 'application/json');
    assert.equal(ue?.['event_name'], 'sign_up');
    assert.equal(ue?.['method'], 'gold');
    assert.equal(ue?.['tier'], 'pro');
    assert.equal(pv?.['event_name'], 'page_view');
    assert.equal(pv?.['method'], undefined);
    assert.equal(pv?.['tier'], 'pro');
  });

  it('reads Unbounce’s data.json form field, and a case looks inside it', () => {
    const body = fixture('unbounce-form-submission.synthetic.form');
    const [lead] = run(UNBOUNCE, body, 'application/x-www-form-urlencoded');
    assert.equal((lead?.['user'] as Record<string, unknown> | undefined)?.['email'], 'ann@example.com');
    assert.equal(lead?.['variant'], 'b');
    const a = Buffer.from(
      body.toString('utf8').replace('%22variant%22%3A%22b%22', '%22variant%22%3A%22a%22'),
    );
    const [other] = run(UNBOUNCE, a, 'application/x-www-form-urlencoded');
    assert.equal(other?.['variant'], undefined, 'variant a meets no case');
  });

  it('a when whose transforms refuse the value meets no case (no error)', () => {
    const body = Buffer.from(JSON.stringify({ data: [{ e: 'ue', eid: 'e1', ue_px: '***not base64***' }] }));
    const [row] = run(SNOWPLOW, body, 'application/json');
    assert.equal(row?.['event_name'], 'snowplow_event');
  });

  it('bounds the json transform as a body is bounded', () => {
    const deep = `${'['.repeat(EMBEDDED_JSON_MAX_DEPTH + 1)}${']'.repeat(EMBEDDED_JSON_MAX_DEPTH + 1)}`;
    const reason = (v: string) => {
      const s = applyTransform(v, 'json');
      return s.ok ? 'ok' : s.why;
    };
    assert.match(reason(deep), /nests deeper than 32 levels/);
    assert.equal(
      reason(`${'['.repeat(EMBEDDED_JSON_MAX_DEPTH)}${']'.repeat(EMBEDDED_JSON_MAX_DEPTH)}`),
      'ok',
    );
    assert.match(reason(`"${'x'.repeat(EMBEDDED_JSON_MAX_CHARS)}"`), /at most 262144/);
    assert.match(reason('{"a":{"__proto__":{"polluted":true}}}'), /the key __proto__ at a/);
    assert.match(reason('{"n":1e400}'), /number out of range/);
  });
});
