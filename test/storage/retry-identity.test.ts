/**
 * One event, one row (#56): an event's identity is what its producer sent. The same body retried
 * without an event_time, from another address and gateway instance, through either publish form,
 * is one identity; store recognises a producer's retry by the first sighting of that identity
 * (adapters/identity-claims.ts) and gives it the first copy's time; a store that cannot tell
 * whether a copy is stored fails the push instead of writing and fanning out again; a redelivery
 * stored by an older release under its whole-event digest still folds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FirestoreEmulator, startFirestoreEmulator } from '@eventbus/firestore-emulator/server.ts';
import { createBatchedLookup } from '../../adapters/batched-lookup.ts';
import { createFirestoreClaimStore } from '../../adapters/firestore-claims.ts';
import { createIdentityClaims } from '../../adapters/identity-claims.ts';
import { planFanOut } from '../../core/delivery/fan-out.ts';
import type { StoredEvent } from '../../core/event.ts';
import { normalizeOptions } from '../../core/event.ts';
import { identityDigest, payloadDigest } from '../../core/identity.ts';
import { limitsOf } from '../../core/json-limits.ts';
import { plan } from '../../core/plan.ts';
import type { Sender } from '../../core/sender.ts';
import {
  type ClaimAnswer,
  type ClaimIdentity,
  COPY_SETTLE_MS,
  NotYet,
  type StoredQuestion,
  sightingOf,
} from '../../core/store/copies.ts';
import type { PubSubMessage } from '../../core/store/message.ts';
import { messageRows, storeConfig, storeMessages } from '../../core/store/store.ts';
import type { InsertRow, RowWriter } from '../../core/warehouse/rows.ts';
import {
  type EnvelopeContext,
  eventMessage,
  parsePublishForm,
  parseTopicsForm,
} from '../../gateway/envelope.ts';
import type { Settings } from '../../schemas/settings.ts';

const settings: Settings = { name: 'test', project: 'test-project', region: 'europe-west1' };
const config = storeConfig(settings, plan(settings));
const T0 = Date.parse('2026-11-24T10:00:00.000Z');

/** The body a producer retries: its own event_id, no event_time, no device. */
const body = {
  event_name: 'lead',
  event_id: 'sms-4711',
  user: { phone: '+4915112345678' },
  form_name: 'callback',
};

function ctx(at: number, ip: string, userAgent: string, sender: Sender = 'browser'): EnvelopeContext {
  return {
    limits: limitsOf(settings),
    options: normalizeOptions(settings),
    received: at,
    // A browser's copies (a write key's) by default: the only sender whose address and user agent
    // are filled; a server's (a token's) keeps only the device it sends.
    client: { sender, ip, userAgent },
    newId: () => `minted-${at}`,
  };
}

let seq = 0;
/** A gateway's message as store receives it: a new Pub/Sub message, published at `at`. */
function pushed(m: { data: Buffer; attributes: Readonly<Record<string, string>> }, at: number, attempt = 1) {
  seq += 1;
  return {
    messageId: `m-${seq}`,
    publishTime: new Date(at).toISOString(),
    attributes: m.attributes,
    data: m.data,
    subscription: 'projects/test-project/subscriptions/events-store',
    deliveryAttempt: attempt,
  } satisfies PubSubMessage;
}

function gatewayCopy(at: number, ip: string, ua: string): PubSubMessage {
  const r = eventMessage(body, '', ctx(at, ip, ua));
  assert.ok(r.ok);
  return pushed(r.message, at);
}

/** A writer that keeps its rows, and the stored check that reads them. */
function warehouse() {
  const rows: InsertRow[] = [];
  const writer: RowWriter = {
    async write(table, batch) {
      if (table === 'events') rows.push(...batch);
      return [];
    },
  };
  const asked: StoredQuestion[] = [];
  const alreadyStored = async (q: StoredQuestion) => {
    asked.push(q);
    return rows.some(
      (r) =>
        r.json['event_id'] === q.event_id &&
        r.json['payload_digest'] === q.payload_digest &&
        r.json['event_time'] === q.event_time,
    );
  };
  return { rows, writer, asked, alreadyStored };
}

/** What storeMessages needs to recognise copies: the warehouse's stored check and the claims. */
function claimingDeps(w: ReturnType<typeof warehouse>, now: () => number) {
  return { writer: w.writer, config, now, alreadyStored: w.alreadyStored, claim: claims(now) };
}

/** An in-memory first-sighting registry, as adapters/identity-claims.ts keeps it in the bucket. */
function claims(now: () => number): ClaimIdentity {
  const seen = new Map<string, { event_time: string; message_id: string; claimed_at: number }>();
  return async (c): Promise<ClaimAnswer> => {
    const first = seen.get(c.digest);
    if (first) return { first: false, ...first };
    seen.set(c.digest, { event_time: c.event_time, message_id: c.message_id, claimed_at: now() });
    return { first: true };
  };
}

describe('storage: one event, one row (retry identity)', () => {
  it('gives the same body one identity from two addresses, two user agents and a minute apart', () => {
    const a = messageRows(gatewayCopy(T0, '203.0.113.7', 'curl/8'), config, T0);
    const b = messageRows(gatewayCopy(T0 + 60_000, '198.51.100.9', 'python-requests/2'), config, T0 + 60_000);
    assert.equal(a.kind, 'event');
    assert.equal(b.kind, 'event');
    if (a.kind !== 'event' || b.kind !== 'event') return;
    assert.notEqual(a.event.event_time, b.event.event_time, 'each copy was stamped at its own arrival');
    assert.equal(a.event.payload_digest, b.event.payload_digest);
    assert.equal(a.row.insertId, b.row.insertId);
    // The server's fields are kept on the row, and named as the server's.
    assert.equal(a.event.device?.ip, '203.0.113.7');
    assert.equal(
      JSON.parse(a.row.json['attributes'] as string).server_fields,
      'event_time,device.ip,device.user_agent',
    );
  });

  it('gives the same identity through both publish forms', () => {
    const topics = parseTopicsForm(body, 'events', undefined, ctx(T0, '203.0.113.7', 'a'));
    const envelope = {
      messages: [
        { data: Buffer.from(JSON.stringify(body)).toString('base64'), attributes: { via: 'native' } },
      ],
    };
    const publish = parsePublishForm(envelope, 'events', ctx(T0 + 5000, '203.0.113.8', 'b'));
    assert.ok(topics.ok && publish.ok);
    const [x, y] = [topics.value.messages[0], publish.value.messages[0]].map((m, i) => {
      const o = messageRows(pushed(m as never, T0 + i * 5000), config, T0);
      assert.equal(o.kind, 'event');
      return o.kind === 'event' ? o.event.payload_digest : '';
    });
    assert.equal(x, y);
  });

  it('keeps what the producer sent in the identity: its own time, its own device, other content', () => {
    const digest = (extra: Record<string, unknown>, ip = '203.0.113.7') => {
      // A server's: the device it sends is its own (a browser's claimed address is replaced).
      const r = eventMessage({ ...body, ...extra }, '', ctx(T0, ip, 'ua', 'server'));
      assert.ok(r.ok);
      const o = messageRows(pushed(r.message, T0), config, T0);
      return o.kind === 'event' ? o.event.payload_digest : '';
    };
    const plain = digest({});
    assert.notEqual(digest({ event_time: '2026-11-24T09:00:00Z' }), plain);
    assert.notEqual(
      digest({ event_time: '2026-11-24T09:00:00Z' }),
      digest({ event_time: '2026-11-24T09:00:01Z' }),
    );
    assert.notEqual(digest({ device: { ip: '192.0.2.1' } }), plain);
    assert.notEqual(digest({ form_name: 'other' }), plain);
  });

  it('is the whole-event digest of earlier releases when the server filled nothing in', () => {
    const event = {
      event_name: 'lead',
      event_id: 'x',
      event_time: '2026-11-24T09:00:00.000Z',
      event_data: {},
    };
    assert.equal(identityDigest(event, undefined), payloadDigest(event));
    assert.equal(identityDigest(event, ['event_id']), payloadDigest(event), 'a minted id stays in');
    assert.notEqual(identityDigest(event, ['event_time']), payloadDigest(event));
  });

  it('stores a retry of an event without a time once, under the first copy’s time, and fans it out for the send-once claims to fold', async () => {
    const w = warehouse();
    let now = T0;
    const deps = claimingDeps(w, () => now);
    const first = await storeMessages([gatewayCopy(T0, '203.0.113.7', 'curl/8')], deps);
    assert.equal(first.stored.length, 1);
    now = T0 + 5 * 60_000; // the producer's retry, five minutes later, from another address
    const retry = await storeMessages([gatewayCopy(now, '198.51.100.9', 'curl/8')], deps);
    assert.equal(w.rows.length, 1, 'one row');
    // The first copy's fan-out is the identity's first: its deliveries send on store's claim.
    assert.deepEqual(sightingOf(first.stored[0] as StoredEvent), { first: true, at: T0, owner: true });
    // Fanned out as the first copy's row: each destination's send-once claim folds it (core/claims/send-once.ts).
    assert.equal(retry.stored.length, 1, 'fanned out again, as the stored row');
    assert.deepEqual(sightingOf(retry.stored[0] as StoredEvent), { first: false, at: now, owner: false });
    assert.equal(retry.stored[0]?.event_time, first.stored[0]?.event_time);
    assert.equal(retry.copies, 1);
    assert.ok(
      w.asked.some(
        (q) =>
          q.event_id === 'sms-4711' &&
          q.event_time === new Date(T0).toISOString() &&
          q.payload_digest === w.rows[0]?.insertId,
      ),
      'asked under the first copy’s time',
    );
  });

  it('writes one skipped row per event and destination for two copies of a refused event', async () => {
    const w = warehouse();
    let now = T0;
    const deps = claimingDeps(w, () => now);
    // Meta needs `ads` and `ad_user_data`, which the lead does not state: refused; the webhook needs none.
    const withDestinations: Settings = {
      ...settings,
      destinations: [
        { id: 'meta', type: 'meta_capi', config: { pixel_id: '1' } },
        { id: 'hook', type: 'webhook' },
      ],
    };
    const skipsOf = (stored: readonly StoredEvent[]) =>
      planFanOut(withDestinations, stored, new Date(now)).skips.map((s) => s.row.destination);
    const first = await storeMessages([gatewayCopy(T0, '203.0.113.7', 'curl/8')], deps);
    assert.deepEqual(skipsOf(first.stored), ['meta'], 'the first copy records the refusal');
    now = T0 + 60_000; // the browser's retry of the batch
    const copy = await storeMessages([gatewayCopy(now, '198.51.100.9', 'curl/8')], deps);
    assert.equal(copy.stored.length, 1, 'the copy is fanned out (its sends fold on the send-once claims)');
    assert.deepEqual(skipsOf(copy.stored), [], 'and writes no second skipped row');
    assert.equal(
      planFanOut(withDestinations, copy.stored, new Date(now)).messages.length,
      1,
      'the webhook’s message',
    );
  });

  it('fails a copy’s push while its first copy is young and not stored, and writes it under the first time later', async () => {
    const w = warehouse();
    let now = T0;
    const claim = claims(() => now);
    // The first copy claimed its identity, but its own push has not written the row yet.
    const firstMessage = gatewayCopy(T0, '203.0.113.7', 'curl/8');
    const o = messageRows(firstMessage, config, T0);
    assert.ok(o.kind === 'event');
    await claim({
      digest: o.event.payload_digest as string,
      event_time: o.event.event_time,
      message_id: firstMessage.messageId,
    });
    now = T0 + 2000;
    const deps = { writer: w.writer, config, now: () => now, alreadyStored: w.alreadyStored, claim };
    await assert.rejects(storeMessages([gatewayCopy(now, '198.51.100.9', 'x')], deps), NotYet);
    assert.equal(w.rows.length, 0);
    now = T0 + COPY_SETTLE_MS + 1000;
    const late = await storeMessages([gatewayCopy(now, '198.51.100.9', 'x')], deps);
    assert.equal(late.stored.length, 1);
    assert.equal(w.rows[0]?.json['event_time'], new Date(T0).toISOString(), 'the first copy’s time');
    assert.equal(late.stored[0]?.event_time, new Date(T0).toISOString());
  });

  it('neither writes nor fans out a copy when the stored check cannot answer: the push fails', async () => {
    const w = warehouse();
    const now = T0 + 60_000;
    const claim = claims(() => T0);
    await storeMessages([gatewayCopy(T0, '203.0.113.7', 'a')], {
      writer: w.writer,
      config,
      now: () => T0,
      claim,
      alreadyStored: w.alreadyStored,
    });
    const failing = async () => {
      throw new Error('Access Denied: bigquery.jobs.create');
    };
    await assert.rejects(
      storeMessages([gatewayCopy(now, '203.0.113.7', 'a')], {
        writer: w.writer,
        config,
        now: () => now,
        claim,
        alreadyStored: failing,
      }),
      /bigquery\.jobs\.create/,
    );
    assert.equal(w.rows.length, 1, 'no second row');
  });

  it('folds a redelivery that an older release stored under its whole-event digest', async () => {
    const w = warehouse();
    // A native event without a time: store stamps the publishTime (the same on every redelivery).
    const native = {
      messageId: 'n-1',
      publishTime: new Date(T0).toISOString(),
      attributes: {},
      data: Buffer.from(JSON.stringify({ event_name: 'lead', event_id: 'n-evt' })),
      subscription: 'projects/test-project/subscriptions/events-store',
      deliveryAttempt: 1,
    } satisfies PubSubMessage;
    const o = messageRows(native, config, T0);
    assert.ok(o.kind === 'event' && o.legacyDigest !== undefined);
    // What the older release wrote: the same row under the digest of the whole event.
    w.rows.push({ insertId: o.legacyDigest, json: { ...o.row.json, payload_digest: o.legacyDigest } });
    const again = await storeMessages([{ ...native, deliveryAttempt: 2 }], {
      writer: w.writer,
      config,
      now: () => T0 + 3000,
      alreadyStored: w.alreadyStored,
      claim: claims(() => T0),
    });
    assert.equal(w.rows.length, 1, 'not written again');
    assert.equal(again.stored[0]?.payload_digest, o.legacyDigest, 'fanned out naming the stored row');
  });
});

describe('storage: a dead letter of a claimed event is the first copy, not a retry', () => {
  it('stores the dead letter of a native event without a time once the warehouse is back', async () => {
    const w = warehouse();
    const claim = claims(() => T0);
    const data = Buffer.from(JSON.stringify({ event_name: 'lead', event_id: 'dl-evt' }));
    const original = {
      messageId: 'orig-1',
      publishTime: new Date(T0).toISOString(),
      attributes: {},
      data,
      subscription: 'projects/test-project/subscriptions/events-store',
      deliveryAttempt: 1,
    } satisfies PubSubMessage;
    const down: RowWriter = {
      async write() {
        throw new Error('warehouse down');
      },
    };
    // The first push claims the identity, then fails to write.
    await assert.rejects(
      storeMessages([original], {
        writer: down,
        config,
        now: () => T0,
        claim,
        alreadyStored: w.alreadyStored,
      }),
      /warehouse down/,
    );
    // Pub/Sub dead-letters it: a new message, its original publish time in an attribute.
    const deadLetter = {
      ...original,
      messageId: 'dl-9',
      publishTime: new Date(T0 + 5000).toISOString(),
      attributes: {
        CloudPubSubDeadLetterSourceSubscription: 'projects/test-project/subscriptions/events-store',
        CloudPubSubDeadLetterSourceTopicPublishTime: new Date(T0).toISOString(),
      },
      subscription: 'projects/test-project/subscriptions/events-store-dead-letter-ledger',
    } satisfies PubSubMessage;
    const out = await storeMessages([deadLetter], {
      writer: w.writer,
      config,
      now: () => T0 + 6000,
      claim,
      alreadyStored: w.alreadyStored,
    });
    assert.equal(out.stored.length, 1, 'stored and fanned out');
    assert.equal(w.rows.length, 1);
  });
});

describe('storage: the stored check fails closed, the ledger check open', () => {
  const failing = async (): Promise<ReadonlySet<string>> => {
    throw new Error('PERMISSION_DENIED');
  };
  it('rejects when closed and answers "no" when open', async () => {
    const lines: string[] = [];
    const closed = createBatchedLookup(failing, (q: string) => q, {
      what: 'stored check',
      onFailure: 'closed',
      log: (m) => lines.push(m),
    });
    await assert.rejects(
      closed('a'),
      /stored check for 1 questions failed \(PERMISSION_DENIED\): trying again later/,
    );
    const open = createBatchedLookup(failing, (q: string) => q, { what: 'ledger check' });
    assert.equal(await open('a'), false);
    assert.match(lines[0] ?? '', /fail-closed/);
  });
});

describe('storage: identity claims in the claims database (Firestore emulator)', () => {
  let emu: FirestoreEmulator;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'claims-'));
    emu = await startFirestoreEmulator({ port: 0, dataDir: dir, fsync: 'none' });
    const made = await fetch(`${emu.url}/v1/projects/test-project/databases?databaseId=claims-test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'FIRESTORE_NATIVE', locationId: 'europe-west1' }),
    });
    assert.equal(made.status, 200, await made.text());
  });
  after(async () => {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the first claim first, and a later one with the first copy’s time and message', async () => {
    const claim = createIdentityClaims(
      createFirestoreClaimStore({ project: 'test-project', database: 'claims-test', emulatorHost: emu.host }),
      { now: () => T0 },
    );
    const digest = 'a'.repeat(64);
    assert.deepEqual(await claim({ digest, event_time: '2026-11-24T10:00:00.000Z', message_id: 'm1' }), {
      first: true,
    });
    assert.deepEqual(await claim({ digest, event_time: '2026-11-24T10:05:00.000Z', message_id: 'm2' }), {
      first: false,
      event_time: '2026-11-24T10:00:00.000Z',
      message_id: 'm1',
      claimed_at: T0,
    });
    assert.deepEqual(await claim({ digest: 'b'.repeat(64), event_time: 'x', message_id: 'm3' }), {
      first: true,
    });
    await assert.rejects(claim({ digest: '../x', event_time: 'x', message_id: 'm4' }), /not a claim id/);
  });
});
