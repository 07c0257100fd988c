/** plan() on environments/example.yaml, asserted as data. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  DEAD_LETTER_RETENTION,
  DEFAULT_RETENTION,
  type Plan,
  POISON_ATTEMPTS,
  POISON_STORE_SUBSCRIPTION,
  POISON_TOPIC,
  plan,
} from '../../../core/plan.ts';
import { parseSettings } from '../../../core/settings.ts';
import type { Settings } from '../../../schemas/settings.ts';

function settingsOf(name: string): Settings {
  const result = parseSettings(
    readFileSync(resolve(import.meta.dirname, `../../../environments/${name}.yaml`), 'utf8'),
  );
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.settings;
}

const load = (name: string): Plan => plan(settingsOf(name));

describe('plan(): the example environment', () => {
  const p = load('example');
  const sub = (name: string) => {
    const s = p.subscriptions.find((x) => x.name === name);
    assert.ok(s, `no subscription ${name}`);
    return s;
  };

  it('names the environment', () => {
    assert.deepEqual(
      [p.environment, p.project, p.region, p.dataset, p.location],
      ['acme-prod', 'acme-outdoor-prod', 'europe-west1', 'events', 'EU'],
    );
  });

  it('has the event topics, deliveries and one dead-letter topic per push subscription', () => {
    assert.deepEqual(
      p.topics.map((t) => `${t.kind}:${t.name}`),
      [
        'events:events',
        'dead_letter:events-store-dead-letter',
        'events:backend_events',
        'dead_letter:backend_events-store-dead-letter',
        'poison:poison',
        'deliveries:deliveries-meta',
        'dead_letter:deliveries-meta-dead-letter',
        'deliveries:deliveries-ga4',
        'dead_letter:deliveries-ga4-dead-letter',
        'deliveries:deliveries-tiktok',
        'dead_letter:deliveries-tiktok-dead-letter',
        'deliveries:deliveries-crm',
        'dead_letter:deliveries-crm-dead-letter',
        'ticks:ticks',
        'runs:runs',
      ],
    );
    assert.deepEqual(
      p.topics.filter((t) => t.producers).map((t) => t.name),
      ['events', 'backend_events'],
    );
  });

  it('pushes each events topic to store, with the settings retry and dead letter', () => {
    for (const topic of ['events', 'backend_events']) {
      assert.deepEqual(sub(`${topic}-store`), {
        name: `${topic}-store`,
        topic,
        kind: 'store',
        push: { function: 'store' },
        ackDeadlineSeconds: 60,
        retryPolicy: { minimumBackoff: '10s', maximumBackoff: '600s' },
        messageRetentionDuration: DEFAULT_RETENTION,
        deadLetterPolicy: { deadLetterTopic: `${topic}-store-dead-letter`, maxDeliveryAttempts: 50 },
      });
    }
  });

  it('gives each destination its own deliveries topic with one unfiltered push subscription', () => {
    const forward = p.subscriptions.filter((s) => s.kind === 'forward');
    assert.deepEqual(
      forward.map((s) => [s.name, s.topic, s.filter, s.push?.function, s.destination]),
      ['meta', 'ga4', 'tiktok', 'crm'].map((id) => [
        `deliveries-${id}-push`,
        `deliveries-${id}`,
        undefined,
        'forward',
        id,
      ]),
    );
    assert.deepEqual(
      p.destinations.map((d) => [d.id, d.topic, d.subscription]),
      ['meta', 'ga4', 'tiktok', 'crm'].map((id) => [id, `deliveries-${id}`, `deliveries-${id}-push`]),
    );
    // Each deliveries topic has exactly one subscription: a message is billed once.
    for (const t of p.topics.filter((x) => x.kind === 'deliveries'))
      assert.equal(p.subscriptions.filter((s) => s.topic === t.name).length, 1, t.name);
  });

  it('keeps the shared topic with filtered subscriptions when the settings say shared', () => {
    const shared = plan({ ...settingsOf('example'), deliveries_topology: 'shared' });
    const forward = shared.subscriptions.filter((s) => s.kind === 'forward');
    assert.deepEqual(
      forward.map((s) => [s.name, s.topic, s.filter, s.push?.function, s.destination]),
      ['meta', 'ga4', 'tiktok', 'crm'].map((id) => [
        `deliveries-${id}`,
        'deliveries',
        `attributes.destination = "${id}"`,
        'forward',
        id,
      ]),
    );
    assert.deepEqual(
      shared.topics.filter((t) => t.kind === 'deliveries').map((t) => t.name),
      ['deliveries'],
    );
    for (const s of shared.subscriptions)
      if (s.filter) assert.match(s.filter, /^attributes\.destination = "[a-z0-9_-]+"$/);
    assert.ok(shared.subscriptions.every((s) => !s.filter || Buffer.byteLength(s.filter) <= 256));
    // The dead-letter topics, their backlogs and ledger subscriptions keep their names.
    const deadLetters = (q: Plan) => q.topics.filter((t) => t.kind === 'dead_letter').map((t) => t.name);
    assert.deepEqual(deadLetters(shared), deadLetters(p));
  });

  it('keeps the draining subscriptions of a switch beside the new ones, one dead-letter topic each', () => {
    const both = plan(settingsOf('example'), { draining: ['meta', 'ga4'] });
    const forward = both.subscriptions.filter((s) => s.kind === 'forward');
    assert.deepEqual(
      forward.map((s) => [s.name, s.topic, s.draining ?? false, s.deadLetterPolicy?.deadLetterTopic]),
      [
        ['deliveries-meta-push', 'deliveries-meta', false, 'deliveries-meta-dead-letter'],
        ['deliveries-meta', 'deliveries', true, 'deliveries-meta-dead-letter'],
        ['deliveries-ga4-push', 'deliveries-ga4', false, 'deliveries-ga4-dead-letter'],
        ['deliveries-ga4', 'deliveries', true, 'deliveries-ga4-dead-letter'],
        ['deliveries-tiktok-push', 'deliveries-tiktok', false, 'deliveries-tiktok-dead-letter'],
        ['deliveries-crm-push', 'deliveries-crm', false, 'deliveries-crm-dead-letter'],
      ],
    );
    // The old subscriptions keep their filter, retry and push: they deliver their backlog.
    const old = forward.find((s) => s.name === 'deliveries-meta');
    const now = forward.find((s) => s.name === 'deliveries-meta-push');
    assert.equal(old?.filter, 'attributes.destination = "meta"');
    assert.deepEqual(
      [old?.retryPolicy, old?.push, old?.ackDeadlineSeconds],
      [now?.retryPolicy, now?.push, now?.ackDeadlineSeconds],
    );
    assert.deepEqual(
      both.topics.filter((t) => t.kind === 'deliveries').map((t) => [t.name, t.draining ?? false]),
      [
        ['deliveries-meta', false],
        ['deliveries', true],
        ['deliveries-ga4', false],
        ['deliveries-tiktok', false],
        ['deliveries-crm', false],
      ],
    );
    const names = both.topics.map((t) => t.name);
    assert.equal(new Set(names).size, names.length, 'no topic declared twice');
    const subs = both.subscriptions.map((s) => s.name);
    assert.equal(new Set(subs).size, subs.length, 'no subscription declared twice');
    assert.deepEqual(both.destinations.find((d) => d.id === 'meta')?.draining, {
      topic: 'deliveries',
      subscription: 'deliveries-meta',
    });
  });

  it('takes retry and ack deadlines from each destination', () => {
    assert.deepEqual(sub('deliveries-meta-push').deadLetterPolicy, {
      deadLetterTopic: 'deliveries-meta-dead-letter',
      maxDeliveryAttempts: 10,
    });
    assert.deepEqual(sub('deliveries-ga4-push').retryPolicy, {
      minimumBackoff: '10s',
      maximumBackoff: '600s',
    });
    // crm: timeout_ms 5000 → 5 s × 3 = 15 s, raised to the 30 s floor, then to forward's 60 s run.
    assert.equal(sub('deliveries-crm-push').ackDeadlineSeconds, 60);
  });

  it('gives every push an ack deadline at least its function’s timeout', () => {
    const timeouts = (q: typeof p) => new Map(q.functions.map((f) => [f.name, f.sizing.timeout_seconds]));
    const settings = settingsOf('example');
    const slow = plan({
      ...settings,
      functions: {
        ...settings.functions,
        forward: { timeout_seconds: 120 },
        store: { timeout_seconds: 600 },
      },
    });
    for (const q of [p, slow]) {
      const short = q.subscriptions
        .filter((s) => s.push && s.ackDeadlineSeconds < (timeouts(q).get(s.push.function) ?? 0))
        .map((s) => `${s.name}: ${s.ackDeadlineSeconds}`);
      assert.deepEqual(short, []);
    }
    assert.equal(slow.subscriptions.find((s) => s.name === 'deliveries-crm-push')?.ackDeadlineSeconds, 120);
    assert.equal(slow.subscriptions.find((s) => s.name === 'events-store')?.ackDeadlineSeconds, 600);
  });

  it('pushes the minute tick and the run messages to the schedule function, without dead letters', () => {
    const tick = sub('ticks-schedule');
    const run = sub('runs-schedule');
    assert.equal(tick.topic, 'ticks');
    assert.equal(run.topic, 'runs');
    for (const s of [tick, run]) {
      assert.deepEqual(s.push, { function: 'schedule' });
      // A failed chunk is acknowledged and the next tick retries it: nothing to dead-letter.
      assert.equal(s.deadLetterPolicy, undefined);
    }
    const timeout = p.functions.find((f) => f.name === 'schedule')?.sizing.timeout_seconds ?? 0;
    // The run push outlives a chunk, which the function's timeout bounds.
    assert.ok(run.ackDeadlineSeconds > timeout, `${run.ackDeadlineSeconds} > ${timeout}`);
  });

  it('keeps every dead-letter backlog as a pull subscription for 31 days', () => {
    const backlogs = p.subscriptions.filter((s) => s.kind === 'backlog');
    // The poison topic is the last dead-letter topic of all (core/plan.ts): kept the same way.
    const deadLetters = p.topics
      .filter((t) => t.kind === 'dead_letter' || t.kind === 'poison')
      .map((t) => t.name);
    assert.deepEqual(
      backlogs.map((s) => s.topic),
      deadLetters,
    );
    for (const b of backlogs) {
      assert.equal(b.name, `${b.topic}-backlog`);
      assert.equal(b.push, undefined);
      assert.equal(b.deadLetterPolicy, undefined);
      assert.equal(b.messageRetentionDuration, DEAD_LETTER_RETENTION);
      assert.equal(DEAD_LETTER_RETENTION, `${31 * 86400}s`);
    }
  });

  it('wires the functions to their subscriptions and secrets', () => {
    assert.deepEqual(
      p.functions.map((f) => [f.name, f.entryPoint, f.triggers, f.secrets]),
      [
        [
          'store',
          'store',
          [
            'events-store',
            'events-store-dead-letter-ledger',
            'backend_events-store',
            'backend_events-store-dead-letter-ledger',
            'poison-store',
          ],
          [],
        ],
        [
          'forward',
          'forward',
          [
            'deliveries-meta-push',
            'deliveries-meta-dead-letter-ledger',
            'deliveries-ga4-push',
            'deliveries-ga4-dead-letter-ledger',
            'deliveries-tiktok-push',
            'deliveries-tiktok-dead-letter-ledger',
            'deliveries-crm-push',
            'deliveries-crm-dead-letter-ledger',
          ],
          ['crm-webhook-signing-key', 'ga4-api-secret', 'meta-capi-token', 'tiktok-access-token'],
        ],
        ['schedule', 'schedule', ['ticks-schedule', 'runs-schedule'], []],
      ],
    );
    assert.equal(p.functions[0]?.sizing.min_instances, 0, 'store keeps no minimum instance');
    assert.equal(p.functions[0]?.sizing.max_instances, 50);
  });

  it('lists destinations with their consent defaults and the secrets of the environment', () => {
    assert.deepEqual(
      p.destinations.map((d) => [d.id, d.type, d.consent]),
      [
        ['meta', 'meta_capi', ['ads', 'ad_user_data']],
        ['ga4', 'ga4_mp', ['analytics']],
        ['tiktok', 'tiktok_events', ['ads', 'ad_user_data']],
        ['crm', 'webhook', []],
      ],
    );
    assert.deepEqual(p.secrets, [
      'eventbus-tokens',
      'crm-webhook-signing-key',
      'ga4-api-secret',
      'meta-capi-token',
      'tiktok-access-token',
    ]);
    assert.deepEqual(p.gateway.topics, ['events', 'backend_events']);
  });

  it('is frozen data', () => {
    assert.ok(Object.isFrozen(p));
    assert.ok(Object.isFrozen(p.subscriptions[0]));
  });
});

describe('plan(): every dead letter of a destination reaches the ledger', () => {
  const p = load('example');

  it('adds a push subscription to forward on each destination dead-letter topic, and none on the events topics', () => {
    for (const d of p.destinations) {
      const ledger = p.subscriptions.filter(
        (s) => s.topic === d.deadLetterTopic && s.kind === 'dead_letter_ledger',
      );
      assert.equal(ledger.length, 1, d.id);
      assert.deepEqual(
        [ledger[0]?.name, ledger[0]?.push, ledger[0]?.destination, ledger[0]?.deadLetterPolicy],
        [
          `${d.deadLetterTopic}-ledger`,
          { function: 'forward' },
          d.id,
          // A dead letter forward cannot record does not come back for a month: it is poison.
          { deadLetterTopic: POISON_TOPIC, maxDeliveryAttempts: POISON_ATTEMPTS },
        ],
      );
      // The backlog stays for replay beside it.
      assert.ok(p.subscriptions.some((s) => s.topic === d.deadLetterTopic && s.kind === 'backlog'));
    }
    // An events topic's dead letters go back to store, which stores them once it can.
    const storeDeadLetters = p.topics.filter((t) => t.kind === 'dead_letter' && t.name.includes('-store-'));
    assert.ok(storeDeadLetters.length > 0);
    for (const t of storeDeadLetters) {
      const ledger = p.subscriptions.filter((s) => s.topic === t.name && s.kind === 'dead_letter_ledger');
      assert.deepEqual(
        ledger.map((s) => [s.name, s.push]),
        [[`${t.name}-ledger`, { function: 'store' }]],
      );
    }
  });
});

describe('plan(): dead letters that cannot be recorded end as poison, never in a loop', () => {
  const p = load('example');

  it('gives every -ledger subscription a bounded dead-letter policy to the poison topic', () => {
    const ledgers = p.subscriptions.filter((s) => s.kind === 'dead_letter_ledger');
    assert.ok(ledgers.length >= 6, 'store and forward ledgers');
    for (const s of ledgers) {
      assert.deepEqual(s.deadLetterPolicy, {
        deadLetterTopic: POISON_TOPIC,
        maxDeliveryAttempts: POISON_ATTEMPTS,
      });
      // Backing off to ten minutes: POISON_ATTEMPTS pushes span hours, not seconds.
      assert.deepEqual(s.retryPolicy, { minimumBackoff: '10s', maximumBackoff: '600s' }, s.name);
    }
  });

  it('keeps the poison topic in invalid_events through store and in a 31-day backlog, with no further dead letter', () => {
    assert.ok(p.topics.some((t) => t.name === POISON_TOPIC && t.kind === 'poison' && !t.producers));
    const onPoison = p.subscriptions.filter((s) => s.topic === POISON_TOPIC);
    assert.deepEqual(
      onPoison.map((s) => [s.name, s.kind, s.push?.function, s.deadLetterPolicy, s.messageRetentionDuration]),
      [
        [POISON_STORE_SUBSCRIPTION, 'poison', 'store', undefined, DEAD_LETTER_RETENTION],
        [`${POISON_TOPIC}-backlog`, 'backlog', undefined, undefined, DEAD_LETTER_RETENTION],
      ],
    );
  });
});
