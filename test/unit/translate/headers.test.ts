/**
 * core/translate/headers.ts and header sources in translate(): headers read case-insensitively,
 * credentials never handed on, and a key from a header.
 */
import assert from 'node:assert/strict';
import { headerOf, readableHeaders } from '../../../core/translate/headers.ts';
import { translate } from '../../../core/translate/index.ts';
import type { TranslatorSpec } from '../../../schemas/translator.ts';

const spec = {
  event: 'webhook_received',
  format: { type: 'json' },
  key: [['header:X-Delivery', 'id']],
  fields: [
    { target: 'topic', source: ['header:X-Topic', 'topic'] },
    { target: 'note', source: 'note' },
  ],
  auth: { signature: { scheme: 'hmac', header: 'X-Mac', secrets: ['S'] } },
} as unknown as TranslatorSpec;

const run = (headers: Record<string, string>, body: unknown) =>
  translate({
    translator: 't',
    spec,
    eventName: spec.event,
    body: Buffer.from(JSON.stringify(body)),
    contentType: 'application/json',
    headers: readableHeaders(headers, spec),
  });

describe('translate: header sources', () => {
  it('names a header case-insensitively; a body path is not one', () => {
    assert.equal(headerOf('header:X-GitHub-Event'), 'x-github-event');
    assert.equal(headerOf('headers.x'), undefined);
  });

  it('hands on the request’s headers, first values, never a credential or signature header', () => {
    assert.deepEqual(
      readableHeaders(
        {
          'X-Topic': ['a', 'b'],
          authorization: 'Bearer t',
          cookie: 'c=1',
          'x-mac': 'abc',
          'x-hub-signature-256': 'sha256=…',
          'x-write-key': 'wk',
          'x-other-signature': 's',
        },
        spec,
      ),
      { 'x-topic': 'a' },
    );
  });

  it('never hands on a credential or signature header, even to a spec that names one as a source', () => {
    // A spec stored under older rules: apply refuses these sources today.
    const named = {
      ...spec,
      fields: ['Authorization', 'Cookie', 'X-Mac', 'X-Hub-Signature-256', 'X-Write-Key', 'X-Topic'].map(
        (h, i) => ({ target: `h${i}`, source: `header:${h}` }),
      ),
    } as unknown as TranslatorSpec;
    const all = {
      authorization: 'Bearer t',
      cookie: 'c=1',
      'x-mac': 'abc',
      'x-hub-signature-256': 'sha256=…',
      'x-write-key': 'wk',
      'x-topic': 'a',
    };
    assert.deepEqual(readableHeaders(all, named), { 'x-topic': 'a' });
  });

  it('hands on only the headers its sources name, and none to a spec that names none', () => {
    const bodyOnly = {
      event: 'webhook_received',
      format: { type: 'json' },
      fields: [{ target: 'note', source: 'note' }],
    } as unknown as TranslatorSpec;
    assert.deepEqual(readableHeaders({ 'x-topic': 'a', 'x-delivery': 'd' }, bodyOnly), {});
    assert.deepEqual(readableHeaders({ 'x-topic': 'a', 'x-unread': 'u' }, spec), { 'x-topic': 'a' });
  });

  it('reads a field and a key from headers, falling back to the body when the header is absent', () => {
    const a = run({ 'x-topic': 'orders/create', 'x-delivery': 'd-1' }, { note: 'n', topic: 'body' });
    const b = run({ 'x-topic': 'orders/create', 'x-delivery': 'd-1' }, { note: 'other body', topic: 'body' });
    const c = run({}, { note: 'n', topic: 'body', id: 'd-1' });
    assert.ok(a.ok && b.ok && c.ok);
    assert.equal(a.rows[0]?.event['topic'], 'orders/create');
    assert.equal(c.rows[0]?.event['topic'], 'body');
    // The same delivery id is the same event, whatever the body and wherever the id was read.
    assert.equal(a.rows[0]?.event['event_id'], b.rows[0]?.event['event_id']);
    assert.equal(a.rows[0]?.event['event_id'], c.rows[0]?.event['event_id']);
  });
});
