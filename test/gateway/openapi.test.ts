/**
 * The committed OpenAPI document (docs/openapi.json, what GET /v1/openapi.json serves) checked
 * with a real JSON Schema validator (typebox/schema, draft 2020-12 with $ref): every event the
 * gateway accepts validates against it, and the catalogue's bad fixtures do not.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Schema from 'typebox/schema';

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, walked by key
type Json = any;

const doc: Json = JSON.parse(readFileSync(join(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));

/** A validator for a schema inside the document; `#/components/…` refs resolve against it. */
const validator = (schema: Json) => Schema.Compile({ ...schema, components: doc.components });
const component = (name: string) => validator({ $ref: `#/components/schemas/${name}` });
const requestBody = (path: string) =>
  validator(doc.paths[path].post.requestBody.content['application/json'].schema);

const errorsOf = (v: ReturnType<typeof validator>, value: unknown) =>
  JSON.stringify(v.Errors(value)[1].map((e) => `${e.instancePath} ${e.message}`));

const eventsDir = join(import.meta.dirname, '../fixtures/events');
const fixtures = (kind: 'valid' | 'invalid') =>
  readdirSync(eventsDir).flatMap((eventName) =>
    readdirSync(join(eventsDir, eventName, kind)).map((file) => ({
      eventName,
      file,
      value: JSON.parse(readFileSync(join(eventsDir, eventName, kind, file), 'utf8')) as unknown,
    })),
  );

interface HostileCase {
  readonly name: string;
  readonly path?: string;
  readonly json?: unknown;
  readonly expect: { readonly status: number };
}
const hostileDir = join(import.meta.dirname, '../fixtures/hostile');
const accepted = readdirSync(hostileDir)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) => JSON.parse(readFileSync(join(hostileDir, f), 'utf8')) as HostileCase[])
  .filter((c) => c.expect.status === 200 && c.json !== undefined);

describe('gateway: the OpenAPI document validates what the gateway accepts', () => {
  it('has the fixtures it is checked with', () => {
    assert.ok(fixtures('valid').length >= 5);
    assert.ok(accepted.length >= 8, `${accepted.length} accepted hostile cases with a JSON body`);
  });

  for (const f of fixtures('valid')) {
    it(`events/${f.eventName}/valid/${f.file}: Event, ${f.eventName}_v1 and both request bodies`, () => {
      for (const v of [
        component('Event'),
        component(`${f.eventName}_v1`),
        requestBody('/v1/topics/{topic}'),
        requestBody('/v1/projects/{project}/topics/{topic}:publish'),
      ]) {
        assert.equal(v.Check(f.value), true, errorsOf(v, f.value));
      }
    });
  }

  // Duplicate-field is the normaliser's rule (a field both at the top level and in event_data),
  // which a schema of either form cannot express.
  for (const f of fixtures('invalid').filter((x) => x.file !== 'duplicate-field.json')) {
    it(`events/${f.eventName}/invalid/${f.file} fails ${f.eventName}_v1`, () => {
      assert.equal(component(`${f.eventName}_v1`).Check(f.value), false);
    });
  }

  for (const c of accepted) {
    it(`hostile corpus, accepted: ${c.name}`, () => {
      const native = c.path?.includes(':publish') === true;
      const v = requestBody(native ? '/v1/projects/{project}/topics/{topic}:publish' : '/v1/topics/{topic}');
      assert.equal(v.Check(c.json), true, errorsOf(v, c.json));
      // Envelope messages carry events as base64 JSON: each is an Event.
      for (const m of (c.json as { messages?: { data: string }[] }).messages ?? []) {
        const event: unknown = JSON.parse(Buffer.from(m.data, 'base64').toString('utf8'));
        assert.equal(component('Event').Check(event), true, errorsOf(component('Event'), event));
      }
    });
  }

  it('still refuses what the contract refuses: bad context, no event_name on the native path', () => {
    const event = component('Event');
    assert.equal(event.Check({ event_name: 'page_view', user: { nickname: 'x' } }), false);
    assert.equal(event.Check({ event_name: 'Page View' }), false);
    assert.equal(event.Check({ event_name: 'page_view', event_time: true }), false);
    assert.equal(event.Check({ content_name: 'x' }), false);
    assert.equal(component('PathEvent').Check({ content_name: 'x' }), true);
    assert.equal(component('view_content_v1').Check({ event_name: 'search', content_name: 'x' }), false);
  });

  it('describes both answers of the plain form: a plain one and the tag’s (tag=1)', () => {
    const answer = validator(
      doc.paths['/v1/topics/{topic}'].post.responses['200'].content['application/json'].schema,
    );
    for (const body of [
      { messageIds: ['1', '2'] },
      {
        messageIds: ['1', null],
        invalidRows: 1,
        violations: [{ field: '[1].content_name', description: 'is required' }],
      },
    ])
      assert.equal(answer.Check(body), true, errorsOf(answer, body));
  });
});
