/**
 * core/platforms/segment-action/answer.ts: what the ledger keeps of any catalogue destination's
 * answer — the request, the status, the platform's request id (a header first, else the body), its
 * count, and only the body's code, message and count fields, at any of three levels.
 */
import assert from 'node:assert/strict';
import { answerColumns } from '../../../../core/platforms/platform-answer.ts';
import { catalogAnswer } from '../../../../core/platforms/segment-action/answer.ts';

const post = { method: 'POST', url: 'https://api.example.com/v1/track' };

describe('segment_action: the platform’s answer', () => {
  it('keeps codes and messages, never the rest of the body; a header’s request id before the body’s', () => {
    const a = catalogAnswer(
      post,
      400,
      { 'x-request-id': 'hdr-1' },
      JSON.stringify({
        requestId: 'body-1',
        error: { code: 'INVALID', message: 'bad field', echoed: { email: 'x@example.com' } },
        data: [{ email: 'x@example.com' }],
      }),
    );
    assert.deepEqual(a, {
      ref: 'hdr-1',
      excerpt: {
        status: 400,
        request: 'POST https://api.example.com/v1/track',
        body: { error: { code: 'INVALID', message: 'bad field' } },
      },
    });
    assert.equal(catalogAnswer(post, 200, {}, '{"request_id":"body-2"}').ref, 'body-2');
  });

  it('an answer that is not JSON keeps the status and the request; counts become events received', () => {
    assert.deepEqual(catalogAnswer(post, 502, {}, '<html>Bad gateway</html>'), {
      excerpt: { status: 502, request: 'POST https://api.example.com/v1/track' },
    });
    const ok = catalogAnswer(post, 200, {}, '{"code":200,"events_ingested":3,"payload_size_bytes":120}');
    assert.equal(ok.eventsReceived, 3);
    assert.deepEqual(ok.excerpt?.['body'], { code: 200, events_ingested: 3, payload_size_bytes: 120 });
  });

  it('the columns are scrubbed: an e-mail in a message or in the URL’s path is its kind', () => {
    const a = catalogAnswer(
      { method: 'PATCH', url: 'https://api.hubapi.com/crm/v3/objects/contacts/ada@example.com' },
      404,
      {},
      '{"status":"error","message":"Contact ada@example.com not found","correlationId":"c-9"}',
    );
    const columns = answerColumns(a);
    assert.equal(columns.platform_ref, 'c-9');
    assert.equal(
      columns.platform_response,
      '{"status":404,"request":"PATCH https://api.hubapi.com/crm/v3/objects/contacts/[email]","body":{"status":"error","message":"Contact [email] not found"}}',
    );
  });
});
