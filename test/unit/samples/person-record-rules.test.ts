/**
 * The words and edges of core/samples/person-record.ts, one by one (issue #99, its mutation
 * round): which money, name, contact and place words make a record a transaction, the person, or
 * a copy of their details; which id is the record's own; when a compound id is undone, and what
 * the guess and the question then say.
 */
import assert from 'node:assert/strict';
import { inferFields, parseSample } from '../../../core/samples/index.ts';
import { holdsMoney, isPersonRecord, personRecordIdQuestion } from '../../../core/samples/person-record.ts';
import type { RuleGuess as Guess } from '../../../core/samples/rule-guess.ts';

function sample(body: unknown) {
  const s = parseSample(JSON.stringify(body));
  return { fields: inferFields(s), rows: s.rows };
}
const fields = (body: unknown) => sample(body).fields;
const ada = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };

/** The question and the guesses after the rule, for a body and the id guess it starts from. */
function ask(body: unknown, column = 'customerId', target = 'user_id') {
  const { fields: f, rows } = sample(body);
  const base: Guess[] = [
    { column, target, why: 'named as the person’s id' },
    ...f
      .filter((x) => x.name !== column)
      .map((x) => ({ column: x.name, target: 'event_data', why: 'a field' })),
  ];
  // The record's own id taken as the event's: the rule then asks rather than moves it.
  for (const [i, g] of base.entries()) {
    if (g.column === 'id' || g.column.endsWith('.id'))
      base[i] = { column: g.column, target: 'event_id', why: 'an id' };
  }
  return { question: personRecordIdQuestion(f, rows, base), base };
}

describe('the creator: a record that holds money', () => {
  it('holds money with any money word on a number at its own level', () => {
    for (const w of ['amount', 'total', 'subtotal', 'price', 'value', 'fee']) {
      assert.equal(holdsMoney(fields({ id: 'r_1', [w]: 12.5 }), ''), true, w);
    }
    assert.equal(holdsMoney(fields({ id: 'r_1', currency: 978 }), ''), true, 'an ISO numeric currency');
    assert.equal(holdsMoney(fields({ id: 'r_1', order_total: 12.5 }), ''), true, 'a money word among others');
    assert.equal(holdsMoney(fields({ id: 'r_1', currency: 'EUR' }), ''), true, 'a currency code as text');
  });

  it('holds none with numbers that are not money, or a money word on text', () => {
    assert.equal(holdsMoney(fields({ id: 12, age: 30 }), ''), false);
    assert.equal(holdsMoney(fields({ id: 'c_1', value: 'gold' }), ''), false);
  });

  it('holds only its own level’s money, not an object’s below it', () => {
    const f = fields({ id: 'c_1', order: { id: 'o_1', total: 10 } });
    assert.equal(holdsMoney(f, ''), false);
    assert.equal(holdsMoney(f, 'order'), true);
  });
});

describe('the creator: a record that is the person', () => {
  it('is the person with any whole name beside a contact detail', () => {
    for (const leaf of ['firstName', 'lastName', 'fullName', 'givenName', 'familyName', 'surname']) {
      assert.equal(
        isPersonRecord(fields({ id: 'c_1', [leaf]: 'Ada', email: 'ada@example.com' }), ''),
        true,
        leaf,
      );
    }
  });

  it('takes a contact detail by its name alone, whatever it holds', () => {
    for (const w of ['email', 'emails', 'phone', 'phones', 'mobile', 'address', 'addresses']) {
      assert.equal(
        isPersonRecord(fields({ id: 'c_1', firstName: 'Ada', [w]: [{ type: 'WORK' }] }), ''),
        true,
        w,
      );
    }
    assert.equal(
      isPersonRecord(fields({ id: 'c_1', firstName: 'Ada', workPhone: { verified: true } }), ''),
      true,
    );
  });

  it('takes a contact detail by its values alone, whatever its name', () => {
    assert.equal(isPersonRecord(fields({ id: 'c_1', firstName: 'Ada', mail: 'ada@example.com' }), ''), true);
    assert.equal(isPersonRecord(fields({ id: 'c_1', firstName: 'Ada', tel: '+44 20 7946 0958' }), ''), true);
  });

  it('is not the person with an e-mail that is always empty', () => {
    assert.equal(
      isPersonRecord(fields({ id: 'c_1', firstName: 'Ada', lastName: 'L', email: null }), ''),
      false,
    );
  });

  it('is not the person when the name is an object’s below it: someone else’s', () => {
    const f = fields({
      id: 'u_1',
      email: 'ada@example.com',
      manager: { firstName: 'Grace', lastName: 'Hopper' },
    });
    assert.equal(isPersonRecord(f, ''), false);
  });

  it('reads only its own columns: an address elsewhere in the payload is not its contact', () => {
    const person = { firstName: 'Ada', lastName: 'Lovelace' };
    assert.equal(isPersonRecord(fields({ sender: { email: 'x@example.com' }, person }), 'person'), false);
    assert.equal(isPersonRecord(fields({ person: { ...person, email: 'ada@example.com' } }), 'person'), true);
  });

  it('is never an address, a billing, shipping or delivery copy, nor a location', () => {
    for (const w of ['address', 'addresses', 'billing', 'shipping', 'delivery', 'location']) {
      assert.equal(isPersonRecord(fields({ [w]: ada }), w), false, w);
    }
  });
});

describe('the creator: the person record’s own id, edge by edge', () => {
  const contact = { id: 'CONT-1', customerId: 'CUST-9', ...ada };

  it('undoes a compound id and asks, offering the record’s own id, in these words', () => {
    const { question, base } = ask(contact);
    const refers =
      "names another record (customer) beside the payload's own id id, where the payload is the person (their name and contact details, no money)";
    assert.deepEqual(base[0], {
      column: 'customerId',
      target: 'event_data',
      field: 'customer_id',
      why: `named as the person's id, but it ${refers}: kept as a field`,
    });
    assert.deepEqual(question, {
      target: 'user_id',
      ask: `Is customerId the person's id? It ${refers}. id is the person's own id, but it is taken as the event's id.`,
      options: [
        { column: 'id', why: "the payload's own id: the person's, as the payload is the person" },
        { column: 'customerId', why: `it ${refers}` },
      ],
      noneGuessed: { why: "customerId names another record; id is taken as the event's id" },
    });
  });

  it('names the record it sits in, and every word of the other record’s name', () => {
    const { question } = ask(
      { member: { id: 'm_1', parentCompanyId: 'co_1', ...ada } },
      'member.parentCompanyId',
    );
    assert.match(
      question?.ask ?? '',
      /another record \(parent company\) beside member's own id member\.id, where member is/,
    );
  });

  it('takes the record’s own id as the person’s when it is only a field, saying why', () => {
    const { fields: f, rows } = sample({ subscriber: { id: 's_1', customer_uuid: 'cu_1', ...ada } });
    const base: Guess[] = [
      { column: 'subscriber.customer_uuid', target: 'user_id', why: 'x' },
      { column: 'subscriber.id', target: 'event_data', why: 'y' },
    ];
    assert.equal(personRecordIdQuestion(f, rows, base), undefined);
    assert.equal(base[0]?.target, 'event_data');
    assert.deepEqual(base[1], {
      column: 'subscriber.id',
      target: 'user_id',
      why: "the id of subscriber, which is the person: their own record's id",
    });
  });

  it('asks about the person’s external id as well', () => {
    const { question, base } = ask(contact, 'customerId', 'user.external_id');
    assert.equal(question?.target, 'user.external_id');
    assert.equal(base[0]?.target, 'event_data');
  });

  it('finds the record’s own id wherever it is listed, and only a plain one at its own level', () => {
    const own = (body: unknown) => ask(body).question?.options[0]?.column;
    assert.equal(own({ customerId: 'CUST-9', id: 'CONT-1', ...ada }), 'id', 'after the compound id');
    assert.equal(own({ idempotency_key: 'k_1', ...contact }), 'id', 'after a name starting with id');
    assert.equal(own({ profile: { id: 'p_1' }, ...contact }), 'id', 'after an object’s own id');
    assert.equal(own({ uuid: null, ...contact }), 'id', 'after an id that is always empty');
    assert.equal(own({ ...contact, id: 1042 }), 'id', 'a number');
  });

  it('leaves a person id that is not a compound id word, or is the record’s only id', () => {
    for (const [body, column] of [
      [{ ...contact, customer_token: 'tok_1' }, 'customer_token'],
      [{ ...contact, uuid: 'u_1' }, 'uuid'],
      [{ customerId: 'CUST-9', ...ada }, 'customerId'],
    ] as const) {
      const { question, base } = ask(body, column);
      assert.equal(question, undefined, column);
      assert.equal(base[0]?.target, 'user_id', column);
    }
  });

  it('undoes a compound uuid as it does a compound id', () => {
    assert.equal(ask({ ...contact, customer_uuid: 'cu_1' }, 'customer_uuid').base[0]?.target, 'event_data');
  });

  it('leaves a compound id that holds the record’s own id in every row, and only then', () => {
    const same = [
      { id: 'c_1', customerId: 'c_1', ...ada },
      { id: 'c_2', customerId: 'c_2', ...ada },
    ];
    assert.equal(ask(same).base[0]?.target, 'user_id');
    const once = [same[0], { ...same[1], customerId: 'CUST-9' }];
    assert.equal(ask(once).base[0]?.target, 'event_data');
  });
});
