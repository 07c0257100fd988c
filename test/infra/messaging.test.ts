import assert from 'node:assert/strict';
import { DEAD_LETTER_RETENTION, type FunctionName, POISON_ATTEMPTS, POISON_TOPIC } from '../../core/plan.ts';
import { loadStackConfig, type StackConfig } from '../../infra/config.ts';
import { Messaging } from '../../infra/messaging.ts';
import { declare, ofType, PROJECT_NUMBER, type Recorded } from './support.ts';

const ENDPOINTS: Record<FunctionName, string> = {
  store: 'https://store.example.run.app',
  forward: 'https://forward.example.run.app',
  schedule: 'https://schedule.example.run.app',
  'forward-catalog': 'https://forward-catalog.example.run.app',
};
const PUSH_SA = 'eventbus-push@acme-outdoor-prod.iam.gserviceaccount.com';

describe('infra: messaging (topics, subscriptions, dead-letter IAM)', () => {
  let config: StackConfig;
  let recorded: Recorded;

  before(async () => {
    config = loadStackConfig({
      project: 'acme-outdoor-prod',
      region: 'europe-west1',
      settingsFile: 'environments/example.yaml',
    });
    recorded = await declare(
      () =>
        new Messaging('acme-prod', {
          plan: config.plan,
          pushEndpoints: ENDPOINTS,
          pushServiceAccountEmail: PUSH_SA,
        }),
    );
  });

  it('declares one topic per planned topic, with the planned names', () => {
    const names = ofType(recorded, 'gcp:pubsub/topic:Topic').map((t) => t.inputs['name']);
    assert.deepEqual(names.sort(), config.plan.topics.map((t) => t.name).sort());
  });

  it('declares every planned subscription, and nothing else', () => {
    const names = ofType(recorded, 'gcp:pubsub/subscription:Subscription').map((s) => s.inputs['name']);
    assert.deepEqual(names.sort(), config.plan.subscriptions.map((s) => s.name).sort());
  });

  it('gives every push subscription its endpoint, OIDC account, filter, retry and dead-letter policy', () => {
    const subs = new Map(
      ofType(recorded, 'gcp:pubsub/subscription:Subscription').map((s) => [s.inputs['name'], s.inputs]),
    );
    const pushed = config.plan.subscriptions.filter((s) => s.push);
    assert.ok(pushed.length >= 6, 'the example pushes two events topics and four destinations');
    for (const p of pushed) {
      const s = subs.get(p.name);
      assert.ok(s, p.name);
      assert.equal(s['pushConfig'].pushEndpoint, ENDPOINTS[p.push!.function], p.name);
      assert.equal(s['pushConfig'].oidcToken.serviceAccountEmail, PUSH_SA, p.name);
      assert.equal(s['pushConfig'].noWrapper, undefined, `${p.name} keeps the classic push body`);
      assert.equal(s['filter'], p.filter, p.name);
      assert.deepEqual(s['retryPolicy'], p.retryPolicy, p.name);
      assert.equal(s['ackDeadlineSeconds'], p.ackDeadlineSeconds, p.name);
      if (p.kind === 'tick' || p.kind === 'run') {
        // The scheduler's failures are retried by the next tick: no dead letters.
        assert.equal(s['deadLetterPolicy'], undefined, p.name);
        continue;
      }
      if (p.kind === 'dead_letter_ledger') {
        // Recording dead letters keeps them the backlog's 31 days; one that cannot be recorded
        // is poison after a bounded number of attempts (core/plan.ts), never a month-long loop.
        assert.equal(s['messageRetentionDuration'], DEAD_LETTER_RETENTION, p.name);
        assert.deepEqual(
          s['deadLetterPolicy'],
          {
            deadLetterTopic: `projects/acme-outdoor-prod/topics/${POISON_TOPIC}`,
            maxDeliveryAttempts: POISON_ATTEMPTS,
          },
          p.name,
        );
        continue;
      }
      if (p.kind === 'poison') {
        // The last stop: kept in invalid_events, no dead letter of its own.
        assert.equal(s['deadLetterPolicy'], undefined, p.name);
        continue;
      }
      assert.equal(
        s['deadLetterPolicy'].deadLetterTopic,
        `projects/acme-outdoor-prod/topics/${p.deadLetterPolicy!.deadLetterTopic}`,
        p.name,
      );
      assert.equal(s['deadLetterPolicy'].maxDeliveryAttempts, p.deadLetterPolicy!.maxDeliveryAttempts);
    }
    assert.equal(
      pushed.filter((p) => p.kind === 'dead_letter_ledger').length,
      config.plan.destinations.length + config.plan.gateway.topics.length,
      'one dead-letter ledger subscription per destination and per events topic',
    );
    // A topic per destination: its one subscription takes every message, unfiltered.
    const meta = subs.get('deliveries-meta-push');
    assert.equal(meta?.['filter'], undefined);
    assert.equal(meta?.['topic'], 'projects/acme-outdoor-prod/topics/deliveries-meta');
  });

  it('keeps dead-letter backlogs 31 days, pulled, never expiring', () => {
    const backlogs = ofType(recorded, 'gcp:pubsub/subscription:Subscription').filter((s) =>
      String(s.inputs['name']).endsWith('-backlog'),
    );
    assert.equal(backlogs.length, config.plan.subscriptions.filter((s) => s.kind === 'backlog').length);
    for (const b of backlogs) {
      assert.equal(b.inputs['messageRetentionDuration'], DEAD_LETTER_RETENTION);
      assert.equal(b.inputs['pushConfig'], undefined);
      assert.deepEqual(b.inputs['expirationPolicy'], { ttl: '' });
    }
  });

  it('lets the Pub/Sub service agent publish to each dead-letter topic and ack each source subscription', () => {
    // The agent is declared (so it exists on a fresh project) and every binding waits for it.
    const [identity, ...more] = ofType(recorded, 'gcp:projects/serviceIdentity:ServiceIdentity');
    assert.equal(more.length, 0);
    assert.equal(identity?.inputs['service'], 'pubsub.googleapis.com');
    const agent = `serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com`;
    const withDl = config.plan.subscriptions.filter((s) => s.deadLetterPolicy);
    const publishers = ofType(recorded, 'gcp:pubsub/topicIAMMember:TopicIAMMember');
    const subscribers = ofType(recorded, 'gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember');
    // One binding per dead-letter topic, the poison topic shared by every -ledger subscription.
    assert.deepEqual(
      publishers.map((p) => p.inputs['topic']).sort(),
      [...new Set(withDl.map((s) => s.deadLetterPolicy!.deadLetterTopic))].sort(),
    );
    assert.deepEqual(
      subscribers.map((p) => p.inputs['subscription']).sort(),
      withDl.map((s) => s.name).sort(),
    );
    for (const m of [...publishers, ...subscribers]) assert.equal(m.inputs['member'], agent);
    for (const m of [...publishers, ...subscribers])
      assert.deepEqual(recorded.dependsOn.get(m.name), [identity?.name], `${m.name} waits for the agent`);
    assert.ok(publishers.every((p) => p.inputs['role'] === 'roles/pubsub.publisher'));
    assert.ok(subscribers.every((p) => p.inputs['role'] === 'roles/pubsub.subscriber'));
  });

  it('lets the agent mint the push account’s OIDC tokens (older projects), on that account only', () => {
    const agent = `serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com`;
    const grants = ofType(recorded, 'gcp:serviceaccount/iAMMember:IAMMember');
    assert.deepEqual(
      grants.map((g) => [g.inputs['serviceAccountId'], g.inputs['role'], g.inputs['member']]),
      [
        [
          `projects/acme-outdoor-prod/serviceAccounts/${PUSH_SA}`,
          'roles/iam.serviceAccountTokenCreator',
          agent,
        ],
      ],
    );
  });
});
