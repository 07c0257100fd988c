/**
 * A flat record's reference offered as the event's id (issue #94, core/samples/flat-reference.ts):
 * where nothing is taken or asked as the event's id, top-level columns named as a reference, a
 * number, a code, a handle or a token of something, or as an order's id, are offered with nothing
 * preselected; never a phone, a secret, a bare code, nor beside an id already taken.
 */
import assert from 'node:assert/strict';
import { referenceNamed } from '../../../core/samples/flat-reference.ts';
import { eventIdFilled as filled, eventIdAsk as idAsk } from './rule-fields.ts';

/** A wallet's payment notice: references only, no column named as an id. */
const notice = {
  amount: 2500,
  status: 'PAID',
  paid_at: '2026-10-02 11:00:00',
  bank_reference: 'BNK2610020001',
  merchant_ref_no: 'SHOP-881',
  channel: 'qris',
};

describe('the creator: a flat record’s reference offered as the event’s id', () => {
  it('offers the references, nothing preselected, where no id was found at all', () => {
    assert.deepEqual(filled(notice), []);
    const q = idAsk(notice);
    assert.ok(q?.noneGuessed, 'no answer preselected');
    assert.deepEqual(
      q?.options.map((o) => o.column),
      ['bank_reference', 'merchant_ref_no'],
    );
  });

  it('offers camel-case references, an order’s id, a message’s token and handle', () => {
    assert.deepEqual(
      idAsk({ paymentReference: 'MNFY|20|1', amountPaid: '100.00', paidOn: '2026-10-02' })?.options.map(
        (o) => o.column,
      ),
      ['paymentReference'],
    );
    assert.deepEqual(
      idAsk({ kind: 'changed', contract_number: 'C-12/1', partner_order_id: 'a1b2-c3' })?.options.map(
        (o) => o.column,
      ),
      ['contract_number', 'partner_order_id'],
    );
    assert.deepEqual(
      idAsk({ event: 'message', message_token: 4912661846655238, text: 'hi' })?.options.map((o) => o.column),
      ['message_token'],
    );
    assert.deepEqual(
      idAsk({ content: 'Ahoy', message_handle: 'mh-77', status: 'RECEIVED' })?.options.map((o) => o.column),
      ['message_handle'],
    );
  });

  it('offers nothing beside an id already taken or asked', () => {
    // The payment posted as the body, nothing naming an event: its own id is asked
    // (record-status.ts), alone; its references are not offered beside it.
    assert.deepEqual(
      idAsk({ ...notice, id: 'pay_1' })?.options.map((o) => o.column),
      ['id'],
    );
    assert.deepEqual(filled({ ...notice, id: 'pay_1' }), []);
    assert.deepEqual(filled({ ...notice, id: 'pay_1', type: 'payment.paid' }), ['id']);
    assert.equal(
      idAsk({ ...notice, id: 'pay_1', type: 'payment.paid' })?.options.some(
        (o) => o.column === 'bank_reference',
      ),
      undefined,
    );
    const withEventId = idAsk({ ...notice, event_id: 'e-1', type: 'payment.paid' });
    assert.ok(!withEventId?.options.some((o) => o.column === 'bank_reference'));
  });

  it('never offers a phone, a secret, a bare code or a nested column', () => {
    const body = {
      phone_number: '+15550100',
      access_token: 'tok_live_9',
      verify_token: 'abc',
      code: 'E12',
      number: 7,
      page_number: 2,
      note: 'no ids here',
      order: { reference: 'R-1' },
    };
    assert.equal(idAsk(body), undefined);
    for (const name of ['phone_number', 'access_token', 'code', 'number', 'status_code', 'order.reference'])
      assert.equal(referenceNamed(name), false, name);
    for (const name of [
      'reference',
      'original_reference',
      'reference_no',
      'po_number',
      'orderId',
      'message_token',
    ])
      assert.equal(referenceNamed(name), true, name);
  });

  it('offers only one value per row shaped as an id', () => {
    const rows = [
      { amount: 1, bank_reference: 'same ref with blanks' },
      { amount: 2, bank_reference: 'same ref with blanks' },
    ];
    assert.equal(idAsk(rows), undefined);
  });

  describe('an id named for what carries the event, and the open question of the records’ ids', () => {
    it('offers a trace id, a correlation id and an update id where no event id was found', () => {
      assert.deepEqual(
        idAsk({ traceId: 'tr~Kf9B', money: { amount: 10, currency: 'EUR' }, description: 'x' })?.options.map(
          (o) => o.column,
        ),
        ['traceId'],
      );
      assert.ok(idAsk({ correlationId: 'req-63f9', reviewStatus: 'init' })?.noneGuessed);
    });

    it('adds them to an open question offering the ids of records the payload holds', () => {
      const update = {
        update_id: 385937742,
        message: { message_id: 7, chat: { id: 11, type: 'private' }, date: 1441645532, text: 'hi' },
      };
      const q = idAsk(update);
      assert.ok(q?.noneGuessed, 'still nothing preselected');
      assert.equal(q?.options.at(-1)?.column, 'update_id');
      assert.ok((q?.options.length ?? 0) > 1, 'the records’ ids kept');
    });

    it('never offers a position or a business party’s number', () => {
      for (const name of [
        'sequenceNumber',
        'merchantSerialNumber',
        'account_number',
        'store_code',
        'serial_number',
      ])
        assert.equal(referenceNamed(name), false, name);
      assert.equal(idAsk({ sequenceNumber: 2, merchantSerialNumber: 'm-1', note: 'x' }), undefined);
    });

    it('never offers a card, bank or tax number', () => {
      for (const name of ['card_number', 'iban_code', 'routing_number', 'vat_number', 'taxNumber'])
        assert.equal(referenceNamed(name), false, name);
      assert.equal(idAsk({ card_number: '4242', vat_number: 'GB123', amount: 10 }), undefined);
    });
  });
});
