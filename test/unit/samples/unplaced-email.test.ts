/**
 * An address no rule placed (issue #94, core/samples/unplaced-email.ts and its use in guess.ts):
 * with no column taken or asked about as the person's e-mail, a column of addresses kept as a
 * field for where it sits is asked about: preselected when it is the only one and not a sender's,
 * offered with no answer preselected when there are several or it is whoever sent; never a
 * business party's or an actor's address, never filled silently.
 */
import assert from 'node:assert/strict';
import { guessChoices, inferFields, parseSample } from '../../../core/samples/index.ts';
import type { RuleGuess } from '../../../core/samples/rule-guess.ts';
import { unplacedEmailQuestion } from '../../../core/samples/unplaced-email.ts';

/** The e-mail question for one body, the columns taken as the person's e-mail, and the guesses. */
const read = (body: unknown) => {
  const sample = parseSample(JSON.stringify(body));
  const g = guessChoices(inferFields(sample), sample.rows);
  return {
    g,
    ask: g.questions.find((q) => q.target === 'user.email'),
    taken: g.columns.flatMap((c) => (c.target === 'user.email' ? [c.column] : [])),
  };
};

describe('the creator: an address no rule placed', () => {
  it('asks about a ticket’s e-mail, preselected, marked personal', () => {
    const { g, ask, taken } = read({ ticket: { id: 12, email: 'jon@example.com', subject: 'Help' } });
    assert.deepEqual(taken, ['ticket.email']);
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['ticket.email'],
    );
    assert.equal(ask?.noneGuessed, undefined);
    const c = g.columns.find((x) => x.column === 'ticket.email');
    assert.equal(c?.confidence, 0.5);
    assert.equal(c?.personal, true);
  });

  it('offers a sender’s address with no answer preselected', () => {
    const { ask, taken } = read({ message: { id: 1, sender_email: 'iago@example.com', content: 'hi' } });
    assert.ok(ask?.noneGuessed);
    assert.deepEqual(taken, []);
  });

  it('offers several addresses with no answer preselected', () => {
    const { ask, taken } = read({ parameters: { mail: 'a@example.com' }, fields: { mail: 'b@example.com' } });
    assert.ok(ask?.noneGuessed);
    assert.equal(ask.options.length, 2);
    assert.deepEqual(taken, []);
  });

  it('never offers a business party’s or an actor’s address', () => {
    assert.equal(read({ ticket: { id: 1 }, assignee: { email: 'agent@example.com' } }).ask, undefined);
    assert.equal(read({ id: 'e1', changer: { primary_email: 'admin@example.com' } }).ask, undefined);
  });

  it('asks nothing when the person’s e-mail is already taken', () => {
    const { ask, taken } = read({ customer: { email: 'a@example.com' }, ticket: { email: 'b@example.com' } });
    assert.deepEqual(taken, ['customer.email']);
    assert.ok(!ask?.options.some((o) => o.column === 'ticket.email'));
  });

  it('never offers the address of whoever acted on the record', () => {
    for (const w of ['actor', 'changer', 'author', 'editor', 'modifier', 'initiator', 'performer']) {
      const { ask, taken } = read({
        ticket: { id: 1, subject: 'Help' },
        [w]: { id: 2, email: 'x@example.com' },
      });
      assert.equal(ask, undefined, w);
      assert.deepEqual(taken, [], w);
    }
    // Anyone else's object in the same place is asked about.
    assert.ok(read({ ticket: { id: 1, subject: 'Help' }, watcher: { id: 2, email: 'x@example.com' } }).ask);
  });

  it('offers the address of whoever sent, asked or replied with no answer preselected', () => {
    for (const column of [
      'sender_email',
      'email_from',
      'source_email',
      'requester_email',
      'requestor_email',
      'sent_email',
      'reply_email',
    ]) {
      const { ask, taken } = read({ ticket: { id: 1, [column]: 'x@example.com' } });
      assert.deepEqual(
        ask?.options.map((o) => o.column),
        [`ticket.${column}`],
        column,
      );
      assert.ok(ask?.noneGuessed, column);
      assert.deepEqual(taken, [], column);
    }
  });

  it('says what it asks, for one address and for several', () => {
    const one = read({ ticket: { id: 12, email: 'jon@example.com', subject: 'Help' } });
    assert.deepEqual(one.ask, {
      target: 'user.email',
      ask: "Is ticket.email the person's e-mail? Its values are addresses and no other address is the person's, but where it sits does not say whose.",
      options: [
        {
          column: 'ticket.email',
          why: 'its values are e-mail addresses, but where it sits (ticket) does not say whose',
        },
      ],
    });
    assert.equal(
      one.g.columns.find((c) => c.column === 'ticket.email')?.why,
      "the one address that is not the business's, kept as a field for where it sits: the person's, asked above, preselected",
    );
    const several = read({ parameters: { mail: 'a@example.com' }, fields: { mail: 'b@example.com' } });
    assert.equal(
      several.ask?.ask,
      "Is one of these the person's e-mail? Their values are addresses, but nothing says whose: a sender's may be the business's.",
    );
    assert.equal(several.ask?.noneGuessed?.why, 'nothing says which address, if any, is the person’s');
  });

  it('never offers a vendor’s, a shop’s or a company’s address, nor one named for a site', () => {
    for (const party of ['vendor', 'shop', 'store', 'company']) {
      assert.equal(
        read({ ticket: { id: 1 }, [party]: { id: 2, email: 'x@example.com' } }).ask,
        undefined,
        party,
      );
    }
    const site = read({ ticket: { id: 1, site_email: 'help@example.com', subject: 'Help' } });
    assert.equal(site.ask, undefined);
    assert.deepEqual(site.taken, []);
  });

  it('offers at most three addresses', () => {
    const mail = (m: string) => ({ mail: `${m}@example.com` });
    const { ask } = read({ a: mail('a'), b: mail('b'), c: mail('c'), d: mail('d') });
    assert.deepEqual(
      ask?.options.map((o) => o.column),
      ['a.mail', 'b.mail', 'c.mail'],
    );
  });

  describe('called on its own', () => {
    const { fields } = (() => {
      const s = parseSample(JSON.stringify({ reply_to: 'a@example.com', id: 'm_1' }));
      return { fields: inferFields(s) };
    })();
    const kept = (): RuleGuess[] => [
      { column: 'reply_to', target: 'event_data', field: 'reply_to', why: 'a field' },
      { column: 'id', target: 'event_id', why: 'the id' },
    ];

    it('says an address at the top of the payload sits at the top', () => {
      const q = unplacedEmailQuestion(kept(), fields, []);
      assert.equal(
        q?.options[0]?.why,
        'its values are e-mail addresses, but where it sits (the top) does not say whose',
      );
    });

    it('never offers an address another guess already took for another target', () => {
      const base: RuleGuess[] = [{ column: 'reply_to', target: 'user_id', why: 'the person’s id' }];
      assert.equal(unplacedEmailQuestion(base, fields, []), undefined);
    });

    it('asks nothing when another question already asks for the person’s e-mail', () => {
      const base = kept();
      assert.equal(
        unplacedEmailQuestion(base, fields, [
          { target: 'event_data', field: 'user.email', ask: '?', options: [{ column: 'x', why: 'y' }] },
        ]),
        undefined,
      );
      assert.equal(
        unplacedEmailQuestion(base, fields, [{ target: 'user.email', ask: '?', options: [] }]),
        undefined,
      );
      assert.deepEqual(base, kept());
    });
  });
});
