/**
 * Topics and subscriptions: create, update, delete, list, detach, and the export subscriptions'
 * checks and health. Each change is applied and logged through engine-state.ts; the push and
 * export workers hear of subscription changes through the push hooks.
 */
import { REC } from './codec.ts';
import type { EngineState } from './engine-state.ts';
import { ApiError, alreadyExists, notFound } from './errors.ts';
import { detach } from './leasing.ts';
import {
  byName,
  type ExportState,
  normalizeSubscription,
  normalizeTopic,
  type SubscriptionInput,
  type SubscriptionResource,
  shortName,
  type TopicInput,
  type TopicResource,
  updateSubscription as updatedSubscription,
  updateTopic as updatedTopic,
} from './resources.ts';
import { checkSchemaSettings } from './schemas.ts';
import type { Subscription } from './subscription.ts';

/** A topic whose schema settings name a schema (and revisions) there are. */
function checkTopicSchema(s: EngineState, topic: TopicResource): TopicResource {
  if (topic.schemaSettings) checkSchemaSettings(topic.schemaSettings, (n) => s.schemas.get(n));
  return topic;
}

export async function createTopic(s: EngineState, input: TopicInput, name: string): Promise<TopicResource> {
  const topic = checkTopicSchema(s, normalizeTopic(input, name));
  if (s.topics.has(name)) throw alreadyExists(shortName(name));
  s.putTopic(topic);
  await s.append({ type: REC.TOPIC_PUT, topic });
  return topic;
}

export async function updateTopic(
  s: EngineState,
  input: TopicInput,
  name: string,
  paths: readonly string[],
): Promise<TopicResource> {
  const current = s.getTopic(name);
  const topic = checkTopicSchema(s, updatedTopic(current, input, paths));
  s.putTopic(topic);
  await s.append({ type: REC.TOPIC_PUT, topic });
  return topic;
}

export async function deleteTopic(s: EngineState, name: string): Promise<void> {
  s.getTopic(name);
  const affected = [...(s.topicSubs.get(name) ?? [])];
  s.removeTopic(name);
  await s.append({ type: REC.TOPIC_DEL, name });
  for (const sub of affected) s.pushHooks?.onSubscriptionChanged(sub.name, sub);
}

export function listTopics(s: EngineState, project: string): TopicResource[] {
  const prefix = `projects/${project}/topics/`;
  return [...s.topics.values()].filter((t) => t.name.startsWith(prefix)).sort(byName);
}

export function listTopicSubscriptions(s: EngineState, topicName: string): string[] {
  s.getTopic(topicName);
  return [...(s.topicSubs.get(topicName) ?? [])].map((sub) => sub.name).sort();
}

export async function createSubscription(
  s: EngineState,
  input: SubscriptionInput,
  name: string,
): Promise<SubscriptionResource> {
  const resource = normalizeSubscription(input, name, (n) => s.topics.has(n));
  if (s.subs.has(name)) throw alreadyExists(shortName(name));
  if (!s.topics.has(resource.topic)) throw notFound(shortName(resource.topic));
  if (resource.bigqueryConfig || resource.cloudStorageConfig) {
    await checkExport(s, resource);
    // Another create of the same name may have won while the check waited.
    if (s.subs.has(name)) throw alreadyExists(shortName(name));
  }
  const sub = s.addSub(resource);
  await s.append({ type: REC.SUB_PUT, sub: resource });
  s.pushHooks?.onSubscriptionChanged(name, sub);
  return resource;
}

export async function updateSubscription(
  s: EngineState,
  input: SubscriptionInput,
  name: string,
  paths: readonly string[],
): Promise<SubscriptionResource> {
  const sub = s.getSubscription(name);
  const resource = updatedSubscription(sub.resource, input, paths, (n) => s.topics.has(n));
  // A config cleared (an empty one) makes a pull subscription again: nothing to check.
  if (
    (resource.bigqueryConfig || resource.cloudStorageConfig) &&
    paths.some((p) => /^(bigquery|cloud_?storage)/i.test(p))
  )
    await checkExport(s, resource);
  sub.setResource(resource);
  await s.append({ type: REC.SUB_PUT, sub: resource });
  s.pushHooks?.onSubscriptionChanged(name, sub);
  return resource;
}

async function checkExport(s: EngineState, resource: SubscriptionResource): Promise<void> {
  if (!s.exportCheck)
    throw new ApiError(
      'FAILED_PRECONDITION',
      'BigQuery and Cloud Storage subscriptions need the BigQuery and Storage emulators: start this emulator with --bigquery-endpoint and --storage-endpoint (or BIGQUERY_EMULATOR_HOST and STORAGE_EMULATOR_HOST).',
    );
  await s.exportCheck(resource);
}

/**
 * An export subscription's health, as its writer last found it: RESOURCE_ERROR with the config's
 * state (NOT_FOUND, SCHEMA_MISMATCH) while it cannot write, ACTIVE again once it can. In memory
 * only, like leases: a restart reports ACTIVE until the next write tells otherwise.
 */
export function setExportState(sub: Subscription, state: ExportState): void {
  const r = sub.resource;
  const subState = state === 'ACTIVE' ? 'ACTIVE' : 'RESOURCE_ERROR';
  if (r.bigqueryConfig && (r.bigqueryConfig.state ?? 'ACTIVE') !== state)
    sub.setResource({ ...r, state: subState, bigqueryConfig: { ...r.bigqueryConfig, state } });
  else if (r.cloudStorageConfig && (r.cloudStorageConfig.state ?? 'ACTIVE') !== state)
    sub.setResource({ ...r, state: subState, cloudStorageConfig: { ...r.cloudStorageConfig, state } });
}

export async function deleteSubscription(s: EngineState, name: string): Promise<void> {
  s.getSubscription(name);
  const sub = s.removeSub(name);
  await s.append({ type: REC.SUB_DEL, name });
  if (sub) for (const c of [...sub.consumers]) detach(sub, c);
  s.pushHooks?.onSubscriptionChanged(name, undefined);
}

export function listSubscriptions(s: EngineState, project: string): SubscriptionResource[] {
  const prefix = `projects/${project}/subscriptions/`;
  return [...s.subs.values()]
    .map((sub) => sub.resource)
    .filter((r) => r.name.startsWith(prefix))
    .sort(byName);
}

/**
 * DetachSubscription: the subscription stays, `detached: true`, its messages (and retained
 * ones) are dropped, nothing more is delivered to it, and its consumers are let go.
 */
export async function detachSubscription(s: EngineState, name: string): Promise<void> {
  const sub = s.getSubscription(name);
  const resource: SubscriptionResource = { ...sub.resource, detached: true };
  sub.setResource(resource);
  s.dropAll(sub);
  for (const c of [...sub.consumers]) detach(sub, c);
  await s.append({ type: REC.SUB_PUT, sub: resource });
  s.pushHooks?.onSubscriptionChanged(name, sub);
}

/** A detached subscription delivers nothing: Pub/Sub answers FAILED_PRECONDITION. */
export function checkAttached(sub: Subscription): void {
  if (sub.resource.detached)
    throw new ApiError('FAILED_PRECONDITION', `Subscription is detached (resource=${shortName(sub.name)}).`);
}
