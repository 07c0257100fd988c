/**
 * One event, one delivery, whatever path the copy took (#73), through the running local
 * environment (`eventbus start`): a Stripe-signed webhook sent twice at once and once more after
 * the first was delivered (each copy signed afresh, as Stripe signs its retries), the same event
 * with its own `event_time` POSTed twice to `/v1/topics/events`, and twice as a Pub/Sub envelope
 * to `…:publish`. Each is one row in `events`, one `delivered` ledger row and one request
 * received per destination, and the later copies are `folded` rows. The copies come seconds
 * apart, not minutes: what folds them is the first-sighting claim in `store` and the send-once
 * claim in `forward`, never BigQuery's insertId window, so the wait changes nothing but the
 * test's length (test/unit/claims/send-once.test.ts runs the same rules at +2 min, +10 min and
 * 3 days).
 *
 * A vendor's own retries through translators the creator drafted (#94; unit-level:
 * test/unit/samples/delivery.test.ts): an envelope whose attempt counter and send time change, a
 * Standard Webhooks-signed delivery whose body changes under the same `webhook-id` header, and two
 * webhooks about one payment with no event id of their own. Each is one row and one delivery.
 *
 * `eventbus replay` of a delivered event to one destination folds into its delivery, on both stores.
 *
 * All of it with the claims in Firestore (the default); the webhook's copies (at once, and after
 * the delivery was made), the :publish copies and the replay again on an environment whose settings say
 * `claims.store: bigtable` (#97), whose claims must then be rows of the Bigtable twin and no
 * document of the Firestore claims database.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { stringify } from 'yaml';
import { bigtableInstanceId, CLAIM_TABLE } from '../../core/claims/claims-plan.ts';
import { normalizeOptions } from '../../core/event.ts';
import { claimsDatabaseId } from '../../core/plan.ts';
import { draftResources } from '../../core/samples/draft.ts';
import { guessChoices, inferFields, parseSample } from '../../core/samples/index.ts';
import { sign } from '../../core/signing/standard-webhooks.ts';
import { keyedBySignature } from '../../core/translate/signature-header.ts';
import { putSecret } from '../../local/local-secrets.ts';
import type { ClaimStoreKind } from '../../schemas/settings-claims.ts';
import { twinBigtable } from '../support/local-bigtable.ts';
import {
  addSdkAndStripeSources,
  eventbusIn,
  localBigQuery,
  localSettingsWith,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import { stripeHeader, TEST_SECRET } from '../support/source-cases.ts';
import { until } from '../support/until.ts';

interface Received {
  readonly destination: string;
  readonly eventId?: string;
  readonly status: number;
}

/** The scenario on an environment whose claims are kept in `store`: all of it on Firestore, its core on Bigtable. */
function sendOnce(store: ClaimStoreKind): void {
  describe(`end to end, claims in ${store}: one event, one delivery, whatever path the copy took`, function () {
    this.timeout(300_000);
    let child: ChildProcess | undefined;
    let dataDir = '';
    const ports: Record<string, number> = {};
    let bigquery: BigQuery;
    const run = Date.now().toString(36);
    const gateway = () => `http://127.0.0.1:${ports['gateway']}`;
    const token = () => readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    const query = async <T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> =>
      (await bigquery.query({ query: sql, params }))[0] as T[];

    const rows = async (id: string) =>
      Number(
        (
          await query<{ n: number }>('SELECT COUNT(*) AS n FROM events.events WHERE event_id = @id', { id })
        )[0]?.n,
      );
    /** Ledger rows of one status per destination. */
    const ledger = async (id: string, status: string) =>
      Object.fromEntries(
        (
          await query<{ destination: string; n: number }>(
            `SELECT destination, COUNT(*) AS n FROM events.deliveries
           WHERE event_id = @id AND status = @status GROUP BY destination`,
            { id, status },
          )
        ).map((r) => [r.destination, Number(r.n)]),
      );
    /** Requests each stand-in took (2xx) for an event id. */
    const received = async (id: string) => {
      const r = (await (await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`)).json()) as {
        received: Received[];
      };
      const out: Record<string, number> = {};
      for (const x of r.received)
        if (x.eventId === id && x.status >= 200 && x.status < 300)
          out[x.destination] = (out[x.destination] ?? 0) + 1;
      return out;
    };

    /**
     * Waits until every destination that got the event has a folded row per later copy, then checks
     * the promise: one row, and per destination one delivered row and one request received.
     */
    const assertOnce = async (id: string, copies: number) => {
      await until(
        `${copies} copies of ${id} folded at the webhook`,
        async () => ((await ledger(id, 'folded'))['webhook'] === copies ? true : undefined),
        120_000,
      );
      // Let anything still in flight land before counting.
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal(await rows(id), 1, 'one row in events');
      const delivered = await ledger(id, 'delivered');
      assert.equal(delivered['webhook'], 1, JSON.stringify(delivered));
      for (const [destination, n] of Object.entries(delivered))
        assert.equal(n, 1, `${destination}: ${n} delivered rows`);
      const folded = await ledger(id, 'folded');
      for (const destination of Object.keys(delivered))
        assert.equal(folded[destination], copies, `${destination}: ${JSON.stringify(folded)} folded rows`);
      const got = await received(id);
      assert.equal(got['webhook'], 1, JSON.stringify(got));
      for (const [destination, n] of Object.entries(got))
        assert.equal(n, 1, `${destination} received it ${n} times`);
    };

    /**
     * What the creator drafts from `sample` with every guess taken (consent given at collection),
     * applied; `auth` is added as the page adds it. Returns the translator's endpoint.
     */
    const applyDraft = async (eventName: string, sample: object, auth?: Record<string, unknown>) => {
      const options = normalizeOptions({ name: 't', project: 't', region: 'europe-west1' } as never);
      const parsed = parseSample(JSON.stringify(sample));
      const fields = inferFields(parsed);
      const window = {
        now: Date.now(),
        pastMs: options.eventTimePastMs,
        futureMs: options.eventTimeFutureMs,
      };
      const granted = 'granted' as const;
      const draft = draftResources({
        eventName,
        translatorName: eventName.replace(/_/g, '-'),
        sample: parsed,
        fields,
        choices: guessChoices(fields, parsed.rows, { window }).columns,
        platforms: { events: {}, consent: { analytics: granted, ads: granted, ad_user_data: granted } },
      });
      const spec = auth
        ? keyedBySignature({ ...draft.translator.spec, auth } as never)
        : draft.translator.spec;
      const file = join(dataDir, `${eventName}.yaml`);
      writeFileSync(
        file,
        [draft.definition, { ...draft.translator, spec }].map((d) => stringify(d)).join('---\n'),
      );
      await eventbusIn(dataDir)('apply', '-f', file);
      return { url: `${gateway()}/v1/translators/${draft.translator.name}`, draft: { ...draft, spec } };
    };
    /** The one event id stored under an event name (two would be the retry stored twice). */
    const storedId = async (eventName: string) => {
      const ids = await until(
        `${eventName} stored`,
        async () => {
          const r = await query<{ event_id: string }>(
            'SELECT DISTINCT event_id FROM events.events WHERE event_name = @eventName',
            { eventName },
          );
          return r.length > 0 ? r.map((x) => x.event_id) : undefined;
        },
        60_000,
      );
      assert.equal(ids.length, 1, `one event id for ${eventName}: ${ids.join(', ')}`);
      return ids[0] as string;
    };
    /** POSTs JSON until the translator is live (not 404), then answers its status. */
    const postJson = async (url: string, body: object, headers: Record<string, string>) => {
      const text = JSON.stringify(body);
      const r = await until(
        `${url} live`,
        async () => {
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body: text,
          });
          return res.status === 404 ? undefined : { status: res.status, text: await res.text() };
        },
        60_000,
      );
      assert.equal(r.status, 200, r.text);
    };
    /** Sends `first`, waits for its delivery, sends `again`: one row, one delivery. */
    const retried = async (
      eventName: string,
      url: string,
      first: () => [object, Record<string, string>],
      again: () => [object, Record<string, string>],
    ) => {
      await postJson(url, ...first());
      const id = await storedId(eventName);
      await until(
        'the first delivery',
        async () => ((await ledger(id, 'delivered'))['webhook'] ? true : undefined),
        60_000,
      );
      await postJson(url, ...again());
      await assertOnce(id, 1);
      assert.equal(await storedId(eventName), id);
    };
    const bearer = () => ({ authorization: `Bearer ${token()}` });
    /** The `:publish` body of a purchase with `id` as its event id (consent given), made once. */
    const purchaseEnvelope = (id: string, extra: Record<string, unknown> = {}) => {
      const event = {
        event_name: 'purchase',
        event_id: id,
        event_time: new Date(Date.now() - 5_000).toISOString(),
        transaction_id: `T-${id}`,
        value: 99.5,
        currency: 'EUR',
        consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
        ...extra,
      };
      return JSON.stringify({ messages: [{ data: Buffer.from(JSON.stringify(event)).toString('base64') }] });
    };
    /** POSTs a `:publish` body to the events topic with the project's token. */
    const publish = (body: string) =>
      fetch(`${gateway()}/v1/projects/local-project/topics/events:publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
        body,
      });
    const payment = (id: string, status: string) => ({
      id,
      amount: 4990,
      currency: 'eur',
      status,
      created: Math.floor(Date.now() / 1000) - 120,
    });

    before(async () => {
      const local = await startLocalCli({
        prefix: `eventbus-send-once-${store}-`,
        ...(store === 'bigtable'
          ? { settings: localSettingsWith('bigtable-claims.yaml', '\nclaims:\n  store: bigtable\n') }
          : {}),
      });
      ({ child, dataDir } = local);
      Object.assign(ports, local.ports);
      bigquery = await localBigQuery(ports);
      await addSdkAndStripeSources(dataDir, TEST_SECRET);
    });

    after(async () => {
      await stopLocal(child, dataDir);
    });

    it('a Stripe-signed webhook sent twice at once and once more later: one row, one delivery, two folded copies', async () => {
      const id = `evt_sendonce_${run}`;
      const fixture = JSON.parse(
        readFileSync(
          join(import.meta.dirname, '..', 'fixtures', 'sources', 'stripe', 'checkout-session-completed.json'),
          'utf8',
        ),
      ) as Record<string, unknown>;
      const body = JSON.stringify({ ...fixture, id, created: Math.floor(Date.now() / 1000) - 60 });
      const url = `${gateway()}/v1/translators/stripe`;
      // Byte-identical bodies; each copy signed when it is sent, as Stripe signs a retry.
      const post = async () => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8', ...(await stripeHeader(body)) },
          body,
        });
        return { status: res.status, text: await res.text() };
      };
      const live = await until(
        'the stripe translator live',
        async () => {
          const r = await post();
          return r.status === 404 ? undefined : r;
        },
        60_000,
      );
      assert.equal(live.status, 200, live.text);
      const twin = await post();
      assert.equal(twin.status, 200, twin.text);
      await until(
        'the first delivery',
        async () => ((await ledger(id, 'delivered'))['webhook'] ? true : undefined),
        60_000,
      );
      const late = await post();
      assert.equal(late.status, 200, late.text);
      await assertOnce(id, 2);
    });

    it('the same envelope published twice on the :publish form: one row, one delivery', async () => {
      const id = `publish-${run}`;
      // One body, sent twice: the copies are byte-identical.
      const body = purchaseEnvelope(id, { user: { email: `pub-${run}@example.com` } });
      const post = () => publish(body);
      const [a, b] = await Promise.all([post(), post()]);
      assert.deepEqual([a.status, b.status], [200, 200]);
      await assertOnce(id, 1);
    });

    it('eventbus replay of a delivered event to the webhook: folded from the claim, nothing sent again', async () => {
      const id = `replayed-${run}`;
      const res = await publish(purchaseEnvelope(id));
      assert.equal(res.status, 200, await res.text());
      await until(
        'the first delivery',
        async () => ((await ledger(id, 'delivered'))['webhook'] ? true : undefined),
        60_000,
      );
      const [report] = JSON.parse(
        await eventbusIn(dataDir)(
          'replay',
          '--destination',
          'webhook',
          '--from',
          new Date(Date.now() - 3_600_000).toISOString(),
          '--to',
          new Date(Date.now() + 60_000).toISOString(),
          '--where',
          `event_id = '${id}'`,
          '--format',
          'json',
        ),
      ) as { read: number; republished: number }[];
      assert.deepEqual([report?.read, report?.republished], [1, 1], JSON.stringify(report));
      await until(
        'the replay folded at the webhook',
        async () => ((await ledger(id, 'folded'))['webhook'] === 1 ? true : undefined),
        120_000,
      );
      await new Promise((r) => setTimeout(r, 3000));
      const replayed = await query<{ status: string; replay: boolean | null }>(
        `SELECT status, replay FROM events.deliveries WHERE event_id = @id AND destination = 'webhook'`,
        { id },
      );
      assert.deepEqual(
        replayed.map((r) => [r.status, r.replay === true]).sort(),
        [
          ['delivered', false],
          ['folded', true],
        ],
        JSON.stringify(replayed),
      );
      assert.equal((await received(id))['webhook'], 1);
    });

    if (store === 'firestore') {
      it('an event with its own event_time POSTed twice to /v1/topics/events: one row, one delivery', async () => {
        const id = `topics-${run}`;
        const event = JSON.stringify({
          event_id: id,
          event_time: new Date(Date.now() - 5_000).toISOString(),
          content_name: 'Red Shoe',
          content_type: 'product',
          value: 49.9,
          currency: 'EUR',
          user: { email: `once-${run}@example.com` },
          consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
        });
        const post = () =>
          fetch(`${gateway()}/v1/topics/view_content`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
            body: event,
          });
        assert.equal((await post()).status, 200);
        await until(
          'the first delivery',
          async () => ((await ledger(id, 'delivered'))['webhook'] ? true : undefined),
          60_000,
        );
        assert.equal((await post()).status, 200);
        await assertOnce(id, 1);
      });

      it('a browser SDK’s call sent again with the same messageId (Segment’s /v1/t with a write key): one row, one delivery', async () => {
        const origin = 'https://shop.example';
        const created = await eventbusIn(dataDir)('key', 'create', '--origin', origin);
        const key = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0] ?? '';
        assert.ok(key, created);
        const messageId = `ajs-next-${run}`;
        // What @segment/analytics-next posts for analytics.track() (its retry resends the same body).
        const body = JSON.stringify({
          type: 'track',
          event: 'Product Viewed',
          messageId,
          anonymousId: `anon-${run}`,
          timestamp: new Date(Date.now() - 5_000).toISOString(),
          properties: { product_id: 'SKU-1', name: 'Red Shoe', price: 49.9, currency: 'EUR' },
          context: { page: { url: `${origin}/p/red-shoe` } },
        });
        const post = () =>
          fetch(`${gateway()}/v1/t`, {
            method: 'POST',
            headers: { 'x-write-key': key, origin, 'content-type': 'text/plain' },
            body,
          });
        const first = await until(
          'the segment translator and the key live',
          async () => {
            const r = await post();
            return r.status === 200 ? r : undefined;
          },
          60_000,
        );
        assert.equal(first.status, 200);
        await until(
          'the first delivery',
          async () => ((await ledger(messageId, 'delivered'))['webhook'] ? true : undefined),
          60_000,
        );
        assert.equal((await post()).status, 200);
        await assertOnce(messageId, 1);
      });

      it('a vendor’s retry with another attempt number and send time (a drafted translator): one row, one delivery', async () => {
        const paid = payment(`pay_a_${run}`, 'succeeded');
        const envelope = (attempt: number) => ({
          event_id: `evt_attempt_${run}`,
          type: 'payment.succeeded',
          attempt_number: attempt,
          sent_at: new Date(Date.now() - 1000).toISOString(),
          data: paid,
        });
        const { url, draft } = await applyDraft('attempt_retry', envelope(1));
        assert.deepEqual(draft.spec.key, ['event_id']);
        await retried(
          'attempt_retry',
          url,
          () => [envelope(1), bearer()],
          () => [envelope(2), bearer()],
        );
      });

      it('a delivery-id header: a Standard Webhooks-signed retry whose body changed, same webhook-id: one row, one delivery', async () => {
        const secretName = `eventbus-translator-sw-${run}`;
        const secret = `whsec_${Buffer.from(`sw-secret-${run}`.padEnd(32, '0')).toString('base64')}`;
        await putSecret(`http://127.0.0.1:${ports['secret-manager']}`, 'local-project', secretName, secret);
        // The vendor's envelope names no id of its own; only its send time changes between attempts.
        const body = () => ({
          data: { amount: 19.9, currency: 'EUR', plan: `gold-${run}` },
          sent_at: new Date(Date.now() - 1000).toISOString(),
        });
        const { url, draft } = await applyDraft('header_retry', body(), {
          signature: { scheme: 'standard_webhooks', secrets: [secretName] },
        });
        assert.deepEqual(draft.spec.key, ['header:webhook-id']);
        const signed = (): [object, Record<string, string>] => {
          const b = body();
          const timestamp = Math.floor(Date.now() / 1000);
          const id = `msg_${run}`;
          return [
            b,
            {
              'webhook-id': id,
              'webhook-timestamp': String(timestamp),
              'webhook-signature': sign({ id, timestamp, body: JSON.stringify(b), secrets: [secret] }),
            },
          ];
        };
        await retried('header_retry', url, signed, signed);
      });

      it('two webhooks for one payment, no event id in the envelope (a drafted translator): one row, one delivery', async () => {
        const captured = payment(`pay_b_${run}`, 'captured');
        const webhook = () => ({
          entity: 'event',
          event: 'payment.captured',
          sent_at: new Date(Date.now() - 1000).toISOString(),
          payload: { payment: { entity: captured } },
        });
        const { url, draft } = await applyDraft('two_webhooks', webhook());
        assert.deepEqual(draft.spec.key, [
          'payload.payment.entity.id',
          'event',
          'payload.payment.entity.status',
        ]);
        await retried(
          'two_webhooks',
          url,
          () => [webhook(), bearer()],
          () => [webhook(), bearer()],
        );
      });
    }

    if (store === 'bigtable')
      it('the claims are rows of the Bigtable twin, and none of them a document of the Firestore claims database', async () => {
        const { hosts: record, client } = await twinBigtable(dataDir);
        let keys: string[];
        try {
          const [found] = await client.instance(bigtableInstanceId('local')).table(CLAIM_TABLE).getRows();
          keys = found.map((r) => String(r.id));
        } finally {
          await client.close();
        }
        // The webhook's and the publish's events: their first sightings, and their sends' claims.
        assert.deepEqual(
          [...new Set(keys.map((k) => k.split('#')[0]))].sort(),
          ['identities', 'sends'],
          keys.join(),
        );
        assert.ok(keys.filter((k) => k.startsWith('identities#')).length >= 2, keys.join());
        const database = `http://${record.firestoreHost}/v1/projects/local-project/databases/${claimsDatabaseId('local')}`;
        assert.equal(
          (await fetch(database)).status,
          200,
          'the Firestore claims database exists (the plan keeps it)',
        );
        for (const key of keys) {
          const [space, id] = key.split('#');
          const doc = await fetch(`${database}/documents/${space}/${id}`);
          assert.equal(doc.status, 404, `${key} is no Firestore document`);
        }
      });
  });
}

sendOnce('firestore');
sendOnce('bigtable');
