/**
 * Topics and subscriptions exactly as plan() lists them: push subscriptions (classic push body,
 * OIDC with the push service account, filter, retry and dead-letter policies) to the functions,
 * pull backlogs on every dead-letter topic, the dead-letter IAM of the Pub/Sub service agent and
 * every other publish grant, each on its topic (never project-wide).
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan, SubscriptionPlan } from '../core/plan.ts';
import type { PerFunction } from './functions.ts';

export interface MessagingArgs {
  readonly plan: Plan;
  /** The HTTPS endpoint each push subscription posts to, per function. */
  readonly pushEndpoints: PerFunction<pulumi.Input<string>>;
  /** The identity whose OIDC token Pub/Sub attaches; it holds run.invoker on each function. */
  readonly pushServiceAccountEmail: pulumi.Input<string>;
  /** Who may publish where (producers, the gateway, `store` on deliveries): topic-level grants. */
  readonly publishers?: readonly TopicPublisher[];
  /** Workloads that pull (and ack) some subscriptions: Subscriber on those only. */
  readonly subscribers?: readonly SubscriptionPuller[];
}

export interface SubscriptionPuller {
  readonly who: string;
  readonly member: pulumi.Input<string>;
  readonly subscriptions: readonly string[];
}

export interface TopicPublisher {
  /** Short label used in resource names, e.g. `gateway` or a producer's identity. */
  readonly who: string;
  readonly member: pulumi.Input<string>;
  readonly topics: readonly string[];
}

export class Messaging extends pulumi.ComponentResource {
  readonly topics: Readonly<Record<string, gcp.pubsub.Topic>>;
  readonly subscriptions: Readonly<Record<string, gcp.pubsub.Subscription>>;
  readonly topicNames: pulumi.Output<string[]>;
  readonly subscriptionNames: pulumi.Output<string[]>;

  constructor(name: string, args: MessagingArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Messaging', name, {}, opts);
    const { plan } = args;
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };

    const topics: Record<string, gcp.pubsub.Topic> = {};
    for (const t of plan.topics) {
      topics[t.name] = new gcp.pubsub.Topic(
        `${name}-topic-${t.name}`,
        { project: plan.project, name: t.name, labels: { environment: plan.environment, kind: t.kind } },
        child,
      );
    }
    const topic = (topicName: string) => {
      const found = topics[topicName];
      if (!found) throw new Error(`plan names topic "${topicName}" but does not declare it`);
      return found;
    };

    const subscriptions: Record<string, gcp.pubsub.Subscription> = {};
    for (const s of plan.subscriptions) {
      subscriptions[s.name] = new gcp.pubsub.Subscription(
        `${name}-sub-${s.name}`,
        subscriptionArgs(s, plan, topic(s.topic).id, args, topic),
        child,
      );
    }

    // Dead-lettering is done by Pub/Sub's own service agent: it must publish to each dead-letter
    // topic and acknowledge on each source subscription. On a fresh project the agent may not
    // exist yet when the first binding is made (IAM then refuses the unknown member): declaring
    // its service identity creates it, and every binding below waits for it.
    const pubsubAgent = new gcp.projects.ServiceIdentity(
      `${name}-pubsub-agent`,
      { project: plan.project, service: 'pubsub.googleapis.com' },
      child,
    );
    const agent = pubsubAgent.member;
    // The agent itself waits for the APIs (child), so waiting for it is enough here.
    const afterAgent = { parent: this, dependsOn: [pubsubAgent] };
    // Projects created before 8 April 2021 also need the agent to mint the push account's OIDC
    // tokens (authenticated push); newer ones have it built in. Granted on that account only.
    new gcp.serviceaccount.IAMMember(
      `${name}-push-token-creator`,
      {
        serviceAccountId: pulumi.interpolate`projects/${plan.project}/serviceAccounts/${args.pushServiceAccountEmail}`,
        role: 'roles/iam.serviceAccountTokenCreator',
        member: agent,
      },
      afterAgent,
    );
    // Several subscriptions share one dead-letter topic (every `-ledger` subscription dead-letters
    // to the poison topic): one publisher binding per topic.
    const boundTopics = new Set<string>();
    for (const s of plan.subscriptions) {
      if (!s.deadLetterPolicy) continue;
      const dl = s.deadLetterPolicy.deadLetterTopic;
      if (!boundTopics.has(dl)) {
        boundTopics.add(dl);
        new gcp.pubsub.TopicIAMMember(
          `${name}-dl-publisher-${dl}`,
          { project: plan.project, topic: topic(dl).name, role: 'roles/pubsub.publisher', member: agent },
          afterAgent,
        );
      }
      new gcp.pubsub.SubscriptionIAMMember(
        `${name}-dl-subscriber-${s.name}`,
        {
          project: plan.project,
          subscription: subscriptions[s.name]!.name,
          role: 'roles/pubsub.subscriber',
          member: agent,
        },
        afterAgent,
      );
    }

    for (const s of args.subscribers ?? []) {
      for (const sub of s.subscriptions) {
        new gcp.pubsub.SubscriptionIAMMember(
          `${name}-subscriber-${s.who}-${sub}`,
          {
            project: plan.project,
            subscription: subscriptions[sub]!.name,
            role: 'roles/pubsub.subscriber',
            member: s.member,
          },
          child,
        );
      }
    }

    for (const p of args.publishers ?? []) {
      for (const t of p.topics) {
        new gcp.pubsub.TopicIAMMember(
          `${name}-publisher-${p.who}-${t}`,
          { project: plan.project, topic: topic(t).name, role: 'roles/pubsub.publisher', member: p.member },
          child,
        );
      }
    }

    this.topics = topics;
    this.subscriptions = subscriptions;
    this.topicNames = pulumi.output(plan.topics.map((t) => t.name));
    this.subscriptionNames = pulumi.output(plan.subscriptions.map((s) => s.name));
    this.registerOutputs({ topics: this.topicNames, subscriptions: this.subscriptionNames });
  }
}

function subscriptionArgs(
  s: SubscriptionPlan,
  plan: Plan,
  topicId: pulumi.Input<string>,
  args: MessagingArgs,
  topic: (name: string) => gcp.pubsub.Topic,
): gcp.pubsub.SubscriptionArgs {
  return {
    project: plan.project,
    name: s.name,
    topic: topicId,
    labels: { environment: plan.environment, kind: s.kind },
    ackDeadlineSeconds: s.ackDeadlineSeconds,
    messageRetentionDuration: s.messageRetentionDuration,
    // Pull subscriptions expire after 31 idle days by default; a dead-letter backlog is idle
    // by design, so it must never expire (an empty ttl means never).
    expirationPolicy: { ttl: '' },
    ...(s.filter ? { filter: s.filter } : {}),
    ...(s.retryPolicy ? { retryPolicy: { ...s.retryPolicy } } : {}),
    ...(s.deadLetterPolicy
      ? {
          deadLetterPolicy: {
            deadLetterTopic: topic(s.deadLetterPolicy.deadLetterTopic).id,
            maxDeliveryAttempts: s.deadLetterPolicy.maxDeliveryAttempts,
          },
        }
      : {}),
    ...(s.push
      ? {
          // Classic push body (no noWrapper): the functions decode it themselves and read
          // deliveryAttempt from it. The OIDC audience defaults to the endpoint, which Cloud Run checks.
          pushConfig: {
            pushEndpoint: pushEndpoint(args, s.push.function),
            oidcToken: { serviceAccountEmail: args.pushServiceAccountEmail },
          },
        }
      : {}),
  };
}

/** A function's push endpoint; a subscription pushing to a function that is not declared is a bug. */
function pushEndpoint(args: MessagingArgs, fn: keyof PerFunction<unknown>): pulumi.Input<string> {
  const endpoint = args.pushEndpoints[fn];
  if (endpoint === undefined) throw new Error(`a subscription pushes to ${fn}, which is not declared`);
  return endpoint;
}
