/**
 * The rules of core/samples/roles.ts one by one (docs/testing.md, its mutation run): whose a
 * column is by each envelope, detail part, business word and person word above it, by a message's
 * sides and direction, by an object's own type; which way a message went by each word of its kind
 * columns; what makes a `state` no region; which names are a version.
 */
import assert from 'node:assert/strict';
import {
  type Direction,
  directionOf,
  notARegion,
  objectTypes,
  roleOf,
  versionNamed,
} from '../../../core/samples/roles.ts';
import type { InferredField } from '../../../core/samples/sample.ts';

const field = (
  name: string,
  examples: unknown[] = ['x'],
  extra: Partial<InferredField> = {},
): InferredField => ({
  name,
  type: 'string',
  examples,
  distinct: examples.length,
  nullable: false,
  ...extra,
});
const noType = () => undefined;
const role = (column: string, direction?: Direction) => roleOf(column, noType, direction);

describe('creator: whose a column is, rule by rule', () => {
  it('looks through each envelope to the payload’s own, the person’s', () => {
    for (const w of [
      'data',
      'object',
      'attributes',
      'payload',
      'body',
      'resource',
      'record',
      'event',
      'properties',
    ])
      assert.deepEqual(role(`${w}.email`), { role: 'person', why: '' }, w);
    assert.deepEqual(role('email'), { role: 'person', why: '' });
  });

  it('looks through each part of a person’s details to whose they are', () => {
    for (const part of ['name', 'phone', 'phone_number', 'phones', 'email', 'emailAddress', 'emails'])
      assert.deepEqual(
        role(`merchant.${part}.value`),
        { role: 'business', why: "inside merchant: the business's, not the person's" },
        part,
      );
  });

  it('takes an object named wholly as the business’s as the business’s', () => {
    for (const name of ['payee', 'shop', 'to', 'called', 'account', 'workspace', 'owner', 'assignee'])
      assert.equal(role(`${name}.email`).role, 'business', name);
    for (const name of ['shopping', 'photo', 'topic', 'accounts_payable', 'ownership'])
      assert.notEqual(role(`${name}.email`).role, 'business', name);
  });

  it('takes an object whose name begins with a person’s word as the person’s', () => {
    for (const name of [
      'customer',
      'billing_address',
      'user',
      'payer',
      'from',
      'signer',
      'donor',
      'customer_details',
    ])
      assert.deepEqual(role(`${name}.email`), { role: 'person', why: `inside ${name}: the person's` }, name);
    assert.deepEqual(role('repository.email'), {
      role: 'other',
      why: "inside repository, not a person's object",
    });
    assert.equal(role('end_user.email').role, 'other', 'a person’s word that does not begin the name');
  });

  it('takes the nearest object that decides, not an outer one', () => {
    assert.equal(role('customer.merchant.email').role, 'business');
    assert.equal(role('merchant.customer.email').role, 'person');
    assert.equal(role('issue.user.email').role, 'person');
  });

  it('reads a message’s sides from the leaf’s first word, turned round when the message went out', () => {
    assert.deepEqual(role('To'), {
      role: 'business',
      why: `"to" names the receiving side: the business's, not the person's`,
    });
    assert.deepEqual(role('CalledCity'), {
      role: 'business',
      why: `"called" names the receiving side: the business's, not the person's`,
    });
    assert.deepEqual(role('to_email', 'out'), {
      role: 'person',
      why: `"to" names the receiving side of a message sent out: the person's`,
    });
    assert.deepEqual(role('From'), { role: 'person', why: `"from" names the sending side: the person's` });
    assert.deepEqual(role('caller_name', 'in'), {
      role: 'person',
      why: `"caller" names the sending side: the person's`,
    });
    assert.deepEqual(role('from', 'out'), {
      role: 'business',
      why: `"from" names the sending side, and the payload says the message went out: the business's, not the person's`,
    });
    assert.equal(role('total_to').role, 'person', 'not the first word');
    assert.equal(role('tomorrow').role, 'person', 'a word that only begins with one');
    assert.equal(role('fromage').role, 'person');
    assert.deepEqual(role('photo_url'), { role: 'person', why: '' }, 'a word that only ends with one');
    assert.deepEqual(role('telecaller_id'), { role: 'person', why: '' });
  });

  it('takes a message’s sender as the person’s only when the message came in', () => {
    assert.deepEqual(role('sender.email', 'in'), {
      role: 'person',
      why: "inside sender of a message that came in: the person's",
    });
    assert.deepEqual(role('sender.email', 'out'), {
      role: 'business',
      why: "inside sender of a message sent out: the business's, not the person's",
    });
    assert.deepEqual(role('sender.email'), {
      role: 'other',
      why: 'inside sender, and nothing says which way the message went',
    });
  });

  it('takes an object whose own type names a person as the person’s, in any case', () => {
    const typeOf = (path: string) => ({ 'data.item': 'User', 'data.other': 'ticket', 'data.n': 7 })[path];
    assert.deepEqual(roleOf('data.item.email', typeOf), {
      role: 'person',
      why: `inside item, whose type is "User": the person's`,
    });
    assert.equal(roleOf('data.other.email', typeOf).role, 'other');
    assert.equal(roleOf('data.n.email', typeOf).role, 'other');
    assert.equal(roleOf('data.list.email', () => ['user']).role, 'other', 'a type that is no text');
    for (const t of [
      'contact',
      'LEAD',
      'customer',
      'visitor',
      'person',
      'subscriber',
      'member',
      'buyer',
      'payer',
    ])
      assert.equal(roleOf('data.item.email', () => t).role, 'person', t);
    for (const t of ['users', 'superuser', 'contacts'])
      assert.equal(roleOf('data.item.email', () => t).role, 'other', t);
  });
});

describe('creator: an object’s own type', () => {
  it('reads its type, object, role or kind when the sample holds one value there', () => {
    for (const key of ['type', 'object', 'role', 'kind'])
      assert.equal(objectTypes([field(`data.item.${key}`, ['user'])])('data.item'), 'user', key);
    assert.equal(objectTypes([field('data.item.type', ['user', 'lead'])])('data.item'), undefined);
    assert.equal(objectTypes([field('data.item.status', ['user'])])('data.item'), undefined);
    assert.equal(
      objectTypes([field('data.item.type', ['user', 'lead']), field('data.item.role', ['lead'])])(
        'data.item',
      ),
      'lead',
    );
  });
});

describe('creator: which way a message went, rule by rule', () => {
  const way = (name: string, ...values: unknown[]) => directionOf([field(name, values)]);

  it('reads each name a kind column has, up to three levels deep', () => {
    for (const name of [
      'type',
      'event',
      'event_type',
      'typeWebhook',
      'direction',
      'status',
      'kind',
      'action',
      'topic',
      'data.object.type',
    ])
      assert.equal(way(name, 'inbound'), 'in', name);
    assert.equal(way('note', 'inbound'), undefined);
    assert.equal(way('a.b.c.type', 'inbound'), undefined);
  });

  it('reads each word of a way out or in', () => {
    for (const w of ['outbound', 'outgoing', 'sent', 'send', 'delivered', 'opened', 'clicked', 'bounced'])
      assert.equal(way('type', `message.${w}`), 'out', w);
    for (const w of ['inbound', 'incoming', 'received', 'receive', 'reply', 'replied'])
      assert.equal(way('type', `message.${w}`), 'in', w);
  });

  it('lets a word of direction settle it over sent or received, and leaves a conflict unknown', () => {
    assert.equal(way('type', 'outgoingMessageReceived'), 'out');
    assert.equal(way('type', 'incomingMessageSent'), 'in');
    assert.equal(way('type', 'inbound', 'outbound'), undefined);
    assert.equal(way('type', 'inbound sent', 'outbound received'), undefined);
    assert.equal(way('type', 'sent', 'received'), undefined);
    assert.equal(way('type', 'ticket.updated'), undefined);
    assert.equal(way('type', 7, 'sent'), 'out', 'a value that is no text is passed over');
  });
});

describe('creator: a state that is no region, rule by rule', () => {
  const region = (column: string, examples: unknown[], columns: string[]) =>
    notARegion(column, field(column, examples), [column, ...columns]);

  it('names a status by its values, trimmed and in any case', () => {
    assert.equal(
      region('state', ['completed', ' PAID '], ['city']),
      'its values ("completed", " PAID ") are a status, not a region',
    );
    assert.equal(region('state', ['completed', 'CA'], ['city']), undefined);
    assert.equal(region('state', ['paidup'], ['city']), undefined);
    assert.equal(region('state', ['prepaid'], ['city']), undefined);
    assert.match(region('state', ['complete', 'Completed'], ['city']) ?? '', /a status/);
    assert.equal(region('state', ['unpaid_'], ['city']), undefined);
    assert.equal(region('state', [7], ['city']), undefined);
  });

  it('needs each word of a place beside it, in the same object', () => {
    for (const place of [
      'city',
      'town',
      'country',
      'zip',
      'postal_code',
      'postcode',
      'address_line',
      'street',
      'province',
    ])
      assert.equal(region('address.state', ['CA'], [`address.${place}`]), undefined, place);
    const none = 'no city, country, postal code or street beside it: not an address’s region';
    assert.equal(region('address.state', ['CA'], ['other.city']), none);
    assert.equal(region('address.state', ['CA'], ['address.geo.city']), none);
    assert.equal(region('address.state', ['CA'], ['address.note']), none);
    assert.equal(notARegion('state', field('state', ['CA']), ['state']), none);
    assert.equal(
      notARegion('address_state', field('address_state', ['CA']), ['address_state']),
      none,
      'not itself',
    );
    assert.equal(region('state', ['CA'], ['city']), undefined);
  });
});

describe('creator: a version’s name', () => {
  it('takes a version or ver word in the leaf only', () => {
    for (const name of ['ApiVersion', 'event_version', 'ver', 'data.schema_ver'])
      assert.ok(versionNamed(name), name);
    for (const name of ['version.created_at', 'versioned_at', 'server', 'cover'])
      assert.ok(!versionNamed(name), name);
  });
});
