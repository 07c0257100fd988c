/**
 * The creator and a form field holding JSON (core/samples/form.ts, draft.ts): Unbounce's
 * `data.json` (the project's fixture, test/fixtures/sources/embedded/SOURCES.md) is read as
 * nested columns, the e-mail inside it is guessed as the person's, and the saved translator reads
 * them with `[json, {path}]`, so translating the same body gives the same values; Snowplow's
 * `ue_px` and `cx` (base64 JSON) likewise with `[base64, json, {path}]`. A field whose JSON is
 * too deep stays text.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { normalizeOptions } from '../../../core/event.ts';
import { applyViolations } from '../../../core/registry/resources.ts';
import { draftResources } from '../../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import { translate } from '../../../core/translate/index.ts';

const options = normalizeOptions({ name: 't', project: 't', region: 'europe-west1' } as never);
const window = {
  now: Date.parse('2026-11-25T12:00:00Z'),
  pastMs: options.eventTimePastMs,
  futureMs: options.eventTimeFutureMs,
};
const BODY = readFileSync(
  new URL('../../fixtures/sources/embedded/unbounce-form-submission.synthetic.form', import.meta.url),
  'utf8',
);

/** The creator's draft of a sample with its guesses taken, checked as apply checks it. */
function savedDraft(sample: ReturnType<typeof parseSample>, eventName: string, translatorName: string) {
  const fields = inferFields(sample);
  const g = guessChoices(fields, sample.rows, { window });
  const draft = draftResources({ eventName, translatorName, sample, fields, choices: g.columns });
  assert.deepEqual(applyViolations([draft.definition, draft.translator] as never, { connections: [] }), []);
  return draft;
}

describe('creator: JSON inside a value (Unbounce’s data.json, Snowplow’s ue_px and cx)', () => {
  it('reads it as columns, and the draft reads them back with json and a path', () => {
    const sample = parseSample(BODY);
    assert.equal(sample.format, 'form');
    assert.deepEqual(sample.embedded, ['data.json']);
    assert.ok(sample.columns.includes('data.json.variant'));
    assert.ok(sample.columns.includes('data.json.ip_address'));
    assert.equal(sample.columns.includes('data.json'), false);
    const draft = savedDraft(sample, 'generate_lead', 'unbounce');
    const variant = draft.translator.spec.fields.find(
      (f) =>
        'source' in f &&
        f.transforms?.some((t) => typeof t === 'object' && 'path' in t && t.path === 'variant'),
    );
    assert.deepEqual(variant && 'source' in variant ? [variant.source, variant.transforms?.[0]] : [], [
      'data.json',
      'json',
    ]);
    const r = translate({
      translator: 'unbounce',
      spec: draft.translator.spec,
      eventName: 'generate_lead',
      body: Buffer.from(BODY),
      contentType: 'application/x-www-form-urlencoded',
      headers: {},
    });
    assert.ok(r.ok, JSON.stringify(r));
    const event = r.rows[0]?.event as Record<string, unknown>;
    assert.ok(JSON.stringify(event).includes('"b"'), JSON.stringify(event));
  });

  it('reads Snowplow’s ue_px and cx (base64 JSON) as columns, read back with base64, json and a path', () => {
    const text = readFileSync(
      new URL('../../fixtures/sources/embedded/snowplow-post-ue-cx.synthetic.json', import.meta.url),
      'utf8',
    );
    const sample = parseSample(text, { records: 'data' });
    assert.deepEqual(sample.encoded, ['ue_px', 'cx']);
    assert.ok(sample.columns.includes('ue_px.data.schema'));
    assert.ok(sample.columns.includes('ue_px.data.data.plan'));
    assert.equal(sample.columns.includes('ue_px'), false);
    const draft = savedDraft(sample, 'acme_signup', 'snowplow');
    const plan = draft.translator.spec.fields.find(
      (f) => 'source' in f && f.source === 'ue_px' && JSON.stringify(f.transforms).includes('data.data.plan'),
    );
    assert.deepEqual(plan && 'source' in plan ? plan.transforms?.slice(0, 3) : [], [
      'base64',
      'json',
      { path: 'data.data.plan' },
    ]);
    const r = translate({
      translator: 'snowplow',
      spec: draft.translator.spec,
      eventName: 'acme_signup',
      body: Buffer.from(text),
      contentType: 'application/json',
      headers: {},
    });
    assert.ok(r.ok, JSON.stringify(r));
    assert.ok(JSON.stringify(r.rows[0]?.event).includes('"gold"'), JSON.stringify(r.rows[0]?.event));
  });

  it('keeps a field whose JSON is too deep as text', () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    const sample = parseSample(`page_id=p1&data.json=${encodeURIComponent(deep)}`);
    assert.equal(sample.embedded, undefined);
    assert.ok(sample.columns.includes('data.json'));
  });
});
