/**
 * The rules of core/samples/request-ref.ts one by one (issue #99), calling it directly: each word
 * of a caller's reference, and the question of the event's id asked over one — when it is asked,
 * which candidate is preselected (the payload's own plain id, the id of the record its type
 * names, the id of the object one level down, in that order), what each candidate must be (each
 * row's own, shaped as an id, a field the suggestions kept) and the words of the question.
 */
import assert from 'node:assert/strict';
import { inferFields, parseSample } from '../../../core/samples/index.ts';
import { requestReference, requestReferenceQuestion } from '../../../core/samples/request-ref.ts';

type Guess = { column: string; target: string; why: string };

/** The sample's fields and rows, and a guess per column: each kept as a field, `ref` named as the event's id. */
function sampleOf(rows: readonly object[], ref = 'idempotency_key') {
  const sample = parseSample(JSON.stringify(rows));
  const fields = inferFields(sample);
  const base: Guess[] = fields.map((f) => ({
    column: f.name,
    target: 'event_data',
    why: f.name === ref ? `named like the event's id; ${requestReference(ref)}` : 'a field',
  }));
  return { fields, rows: sample.rows, base };
}
/** The question asked over these rows, and the guesses after it. */
function ask(rows: readonly object[], ref = 'idempotency_key', change?: (base: Guess[]) => void) {
  const s = sampleOf(rows, ref);
  change?.(s.base);
  const q = requestReferenceQuestion(s.fields, s.rows, s.base);
  return { q, base: s.base, options: q?.options.map((o) => o.column) };
}
const REF_WHY =
  `"idempotency_key" is the caller's reference for the request that started the record, not the event's id: ` +
  'the same for every event about that record';

describe('creator: each word of a caller’s request reference', () => {
  it('takes each caller word, each kind of reference and each ending, and says why', () => {
    for (const by of ['', 'client_', 'caller_', 'external_'])
      for (const kind of ['idempotency', 'idempotence', 'request', 'reference', 'correlation'])
        for (const end of ['key', 'id', 'uuid', 'token', 'ref', 'reference'])
          assert.ok(requestReference(`${by}${kind}_${end}`), `${by}${kind}_${end}`);
    for (const name of ['reference', 'client_reference', 'caller_reference', 'data.callerReference'])
      assert.ok(requestReference(name), name);
    assert.equal(
      requestReference('request.idempotencyKey'),
      `"request.idempotencyKey" is the caller's reference for the request that started the record, not the event's id`,
    );
  });

  it('takes the whole leaf only: no other word before or after it', () => {
    for (const name of [
      'external_reference',
      'my_request_id',
      'request_id_value',
      'reference_key_id',
      'user_reference',
      'reference_code',
      'idempotency',
      'request',
      'client_id',
      'request_id.value',
    ])
      assert.equal(requestReference(name), undefined, name);
  });
});

describe('creator: the question of the event’s id over a caller’s reference', () => {
  it('offers the reference alone, preselected, when nothing else can be the event’s id', () => {
    const { q, base } = ask([{ idempotency_key: 'k1', status: 'ok' }]);
    assert.deepEqual(q, {
      target: 'event_id',
      ask: "Which column is the event's own id? idempotency_key is the caller's reference for a request, not the event's: a wrong one folds different events into one.",
      options: [{ column: 'idempotency_key', why: `${REF_WHY}; no other column is an id of the event` }],
    });
    assert.deepEqual(base[0], {
      column: 'idempotency_key',
      target: 'event_id',
      why: `${REF_WHY}; asked above, preselected`,
    });
    assert.deepEqual(base[1], { column: 'status', target: 'event_data', why: 'a field' });
  });

  it('asks nothing when a column is the event’s id already, or no reference was named as one', () => {
    const rows = [{ idempotency_key: 'k1', status: 'ok' }];
    assert.equal(
      ask(rows, 'idempotency_key', (b) => {
        (b[1] as Guess).target = 'event_id';
      }).q,
      undefined,
    );
    assert.equal(ask(rows, 'status').q, undefined, 'the reference’s why never said it was one');
    assert.equal(
      ask(rows, 'idempotency_key', (b) => {
        (b[0] as Guess).target = 'event_time';
      }).q,
      undefined,
      'taken for another target',
    );
    assert.equal(ask([{ idempotency_key: null, status: 'ok' }]).q, undefined, 'never holds a value');
    assert.equal(
      ask(rows, 'idempotency_key', (b) => {
        (b[0] as Guess).column = 'request_id';
        (b[0] as Guess).why = `named; ${requestReference('request_id')}`;
      }).q,
      undefined,
      'a column the sample does not hold',
    );
  });

  it('asks of a reference at the envelope’s top or in its event object, not deeper', () => {
    assert.deepEqual(
      ask([{ event: { idempotency_key: 'k1' }, status: 'ok' }], 'event.idempotency_key').options,
      ['event.idempotency_key'],
    );
    assert.equal(
      ask([{ request: { idempotency_key: 'k1' }, status: 'ok' }], 'request.idempotency_key').q,
      undefined,
    );
  });

  it('preselects the payload’s own plain id, id or uuid, at the top or in its event object', () => {
    for (const id of ['id', 'uuid', 'event.id']) {
      const row = (n: number) => (id === 'event.id' ? { event: { id: `e${n}` } } : { [id]: `e${n}` });
      const { q, base } = ask([
        { idempotency_key: 'k1', ...row(1) },
        { idempotency_key: 'k2', ...row(2) },
      ]);
      assert.deepEqual(q?.options, [
        { column: id, why: "the payload's own id: the id of what it is about" },
        { column: 'idempotency_key', why: REF_WHY },
      ]);
      const taken = base.find((g) => g.column === id);
      assert.deepEqual(taken, {
        column: id,
        target: 'event_id',
        why: "the payload's own id: the id of what it is about; asked above, preselected",
      });
      assert.equal(base.find((g) => g.column === 'idempotency_key')?.target, 'event_data');
    }
  });

  it('takes as a candidate only an id each row has its own of, shaped as an id, kept as a field', () => {
    const lone = ['idempotency_key'];
    assert.deepEqual(
      ask([
        { idempotency_key: 'k1', id: 'e1' },
        { idempotency_key: 'k2', id: 'e1' },
      ]).options,
      lone,
    );
    assert.deepEqual(ask([{ idempotency_key: 'k1', id: 'e1' }, { idempotency_key: 'k2' }]).options, lone);
    assert.deepEqual(ask([{ idempotency_key: 'k1', id: 'two words' }]).options, lone);
    assert.deepEqual(ask([{ idempotency_key: 'k1', id: 7 }]).options, ['id', 'idempotency_key']);
    assert.deepEqual(ask([{ idempotency_key: 'k1', id: 7.5 }]).options, lone);
    assert.deepEqual(
      ask([{ idempotency_key: 'k1', id: 'e1' }], 'idempotency_key', (b) => {
        (b.find((g) => g.column === 'id') as Guess).target = 'event_time';
      }).options,
      lone,
    );
    assert.deepEqual(
      ask([{ idempotency_key: 'k1', data: { object: { id: 'o1' } } }]).options,
      lone,
      'too deep',
    );
  });

  it('preselects the id of the record the event’s type names, by its first word', () => {
    for (const [leaf, type] of [
      ['type', 'Verification.updated'],
      ['event', 'verification.created'],
      ['eventType', 'VERIFICATION_FAILED'],
      ['event_name', 'verification'],
      ['topic', 'verification/updated'],
      ['trigger', 'verification.done'],
    ] as const) {
      const { q, base } = ask([{ verification_id: 'v1', [leaf]: type, idempotency_key: 'k1' }]);
      assert.deepEqual(
        q?.options[0],
        {
          column: 'verification_id',
          why: "the id of the verification the event's type names",
        },
        leaf,
      );
      assert.equal(base.find((g) => g.column === 'verification_id')?.target, 'event_id', leaf);
    }
    for (const id of ['verification_uuid', 'event.verification_id'])
      assert.equal(
        ask([
          {
            ...(id === 'event.verification_id' ? { event: { verification_id: 'v1' } } : { [id]: 'v1' }),
            type: 'verification.updated',
            idempotency_key: 'k1',
          },
        ]).options?.[0],
        id,
        id,
      );
    assert.equal(
      ask([{ verification_id: 'v1', __event__: { type: 'verification.updated' }, idempotency_key: 'k1' }])
        .options?.[0],
      'verification_id',
    );
  });

  it('names no record from a type deeper than one object, another word, or a value that is no text', () => {
    const rows: object[] = [
      { verification_id: 'v1', a: { b: { type: 'verification.x' } } },
      { verification_id: 'v1', status: 'verification' },
      { verification_id: 'v1', type: 'payment.updated' },
      { verification_id: 'v1', type: 5 },
      { old_verification_id: 'v1', type: 'old.verification' },
      { verification_key: 'v1', type: 'verification.x' },
    ];
    const lone = ['idempotency_key'];
    for (const row of rows)
      assert.deepEqual(ask([{ ...row, idempotency_key: 'k1' }]).options, lone, JSON.stringify(row));
    assert.deepEqual(
      ask([{ request_id: 'r1', type: 'request.created', idempotency_key: 'k1' }]).options,
      lone,
      'another reference is never the better candidate',
    );
  });

  it('preselects the plain id of the object one level down, naming that object', () => {
    const { q, base } = ask([
      { idempotency_key: 'k1', payment: { id: 'pay_1', status: 'ok' } },
      { idempotency_key: 'k2', payment: { id: 'pay_2', status: 'ok' } },
    ]);
    assert.deepEqual(q?.options[0], {
      column: 'payment.id',
      why: 'the id of payment, the object the payload is about',
    });
    assert.equal(base.find((g) => g.column === 'payment.id')?.target, 'event_id');
    assert.deepEqual(ask([{ idempotency_key: 'k1', data: { uuid: 'u1' } }]).options?.[0], 'data.uuid');
    const lone = ['idempotency_key'];
    assert.deepEqual(
      ask([
        { idempotency_key: 'k1', data: { id: 'a' } },
        { idempotency_key: 'k2', data: { id: 'a' } },
      ]).options,
      lone,
    );
    assert.deepEqual(ask([{ idempotency_key: 'k1', data: { id: 'a b' } }]).options, lone);
    assert.deepEqual(ask([{ idempotency_key: 'k1', data: { object_id: 'o1' } }]).options, lone);
    assert.deepEqual(
      ask([{ idempotency_key: 'k1', data: { id: 'a' } }], 'idempotency_key', (b) => {
        (b.find((g) => g.column === 'data.id') as Guess).target = 'user_id';
      }).options,
      lone,
    );
  });

  it('prefers the own id to the named record’s, and the named record’s to the object below', () => {
    const all = { idempotency_key: 'k1', data: { id: 'd1' }, verification_id: 'v1', type: 'verification.x' };
    assert.equal(ask([{ ...all, id: 'e1' }]).options?.[0], 'id');
    assert.equal(ask([all]).options?.[0], 'verification_id');
  });

  it('finds a candidate wherever it stands among the columns, the first of them too', () => {
    assert.deepEqual(ask([{ id: 'e1', idempotency_key: 'k1' }]).options, ['id', 'idempotency_key']);
    assert.deepEqual(ask([{ data: { id: 'd1' }, idempotency_key: 'k1' }]).options, [
      'data.id',
      'idempotency_key',
    ]);
  });

  it('takes only a leaf that is id or uuid alone, never a longer word or one after it', () => {
    const lone = ['idempotency_key'];
    for (const row of [
      { id_str: 'e1' },
      { verification_id_str: 'v1', type: 'verification.updated' },
      { verification_guid: 'v1', type: 'verification.updated' },
      { verification_identity: 'v1', type: 'verification.updated' },
    ])
      assert.deepEqual(ask([{ ...row, idempotency_key: 'k1' }]).options, lone, JSON.stringify(row));
  });
});
