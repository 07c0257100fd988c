/**
 * core/translate/signature-spec.ts through the apply-time checks (spec.ts, translatorViolations):
 * each field with the scheme it belongs to, what a `signed` kind needs, `sns`'s topics and no
 * secret, and a tolerance only where a timestamp is signed.
 */
import assert from 'node:assert/strict';
import { translatorViolations } from '../../../core/translate/spec.ts';

const spec = (signature: Record<string, unknown>) => ({
  event: 'view_content',
  format: { type: 'json' },
  auth: { signature },
  fields: [{ target: 'content_name', source: 'name' }],
});
const fields = (signature: Record<string, unknown>) =>
  translatorViolations(spec(signature), 'spec').map((v) => v.field);

describe('translators: a signature’s apply-time checks', () => {
  it('takes each generic kind, md5, and sns with its topics', () => {
    for (const ok of [
      { scheme: 'hmac', secrets: ['S'], signed: 'url_form', algorithm: 'sha1', encoding: 'base64' },
      { scheme: 'hmac', secrets: ['S'], algorithm: 'md5', delivery_id_header: 'X-Delivery' },
      {
        scheme: 'hmac',
        secrets: ['S'],
        signed: 'method_url_body_timestamp',
        timestamp_header: 'X-Timestamp',
        tolerance_seconds: 600,
      },
      {
        scheme: 'sns',
        topic_arns: ['arn:aws:sns:eu-west-1:123456789012:orders.fifo'],
        tolerance_seconds: 3600,
      },
      { scheme: 'stripe', secrets: ['S'], tolerance_seconds: 60 },
    ])
      assert.deepEqual(fields(ok), [], JSON.stringify(ok));
  });

  it('refuses a field of another scheme, a kind without its timestamp, an unsigned timestamp, and a tolerance nothing signs', () => {
    const at = 'spec.auth.signature';
    assert.deepEqual(
      fields({ scheme: 'github', secrets: ['S'], signed: 'url_form', delivery_id_header: 'X' }),
      [`${at}.signed`, `${at}.delivery_id_header`],
    );
    assert.deepEqual(fields({ scheme: 'hmac', secrets: ['S'], signed: 'method_url_body_timestamp' }), [
      `${at}.timestamp_header`,
    ]);
    assert.deepEqual(
      fields({ scheme: 'hmac', secrets: ['S'], timestamp_header: 'X-T', tolerance_seconds: 5 }),
      [`${at}.timestamp_header`, `${at}.tolerance_seconds`],
    );
    assert.deepEqual(fields({ scheme: 'github', secrets: ['S'], tolerance_seconds: 5 }), [
      `${at}.tolerance_seconds`,
    ]);
  });

  it('wants a secret of every scheme but sns, and topics of sns alone', () => {
    const at = 'spec.auth.signature';
    assert.deepEqual(fields({ scheme: 'stripe' }), [`${at}.secrets`]);
    assert.deepEqual(fields({ scheme: 'sns', secrets: ['S'] }), [`${at}.secrets`, `${at}.topic_arns`]);
    assert.deepEqual(
      fields({ scheme: 'hmac', secrets: ['S'], topic_arns: ['arn:aws:sns:us-east-1:123456789012:t'] }),
      [`${at}.topic_arns`],
    );
    assert.ok(fields({ scheme: 'sns', topic_arns: ['not-an-arn'] }).length > 0);
  });
});
