/**
 * Snapshots and Seek. A snapshot keeps a subscription's unacknowledged messages as they were and
 * what its topic is given after; a Seek makes a subscription's unacknowledged messages those of a
 * snapshot or those published from a time on (engine-state.ts applies it, the same way on replay).
 */
import { REC, type SnapshotResource } from './codec.ts';
import type { EngineState, SnapshotState } from './engine-state.ts';
import { ApiError, alreadyExists, invalid, notFound } from './errors.ts';
import { scheduleDispatch } from './leasing.ts';
import { byName, DELETED_TOPIC, parseName, shortName } from './resources.ts';

/** Pub/Sub keeps a snapshot for 7 days less the age of its oldest unacknowledged message. */
const SNAPSHOT_LIFE_MS = 7 * 86_400_000;

/** A live snapshot; an expired one is deleted on the way (Pub/Sub expires them on its own). */
export function getSnapshot(s: EngineState, name: string): SnapshotState {
  parseName(name, 'snapshots');
  const snap = s.snapshots.get(name);
  if (snap && snap.resource.expireTime <= Date.now()) {
    s.snapshots.delete(name);
    s.policies.delete(name);
    s.appendQuiet({ type: REC.SNAP_DEL, name });
  }
  const live = s.snapshots.get(name);
  if (!live) throw notFound(shortName(name));
  return live;
}

export async function createSnapshot(
  s: EngineState,
  name: string,
  subscription: string,
  labels?: Record<string, string>,
): Promise<SnapshotResource> {
  parseName(name, 'snapshots');
  const sub = s.getSubscription(subscription);
  const existing = s.snapshots.get(name);
  if (existing && existing.resource.expireTime > Date.now()) throw alreadyExists(shortName(name));
  if (sub.resource.topic === DELETED_TOPIC)
    throw new ApiError('FAILED_PRECONDITION', "The subscription's topic has been deleted.");
  let oldest = Date.now();
  for (const sm of sub.msgs.values()) if (sm.m.publishTime < oldest) oldest = sm.m.publishTime;
  const resource: SnapshotResource = {
    name,
    topic: sub.resource.topic,
    expireTime: oldest + SNAPSHOT_LIFE_MS,
    ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
  };
  s.putSnapshot(resource, sub);
  await s.append({ type: REC.SNAP_PUT, snapshot: resource, sub: sub.name });
  return resource;
}

export async function updateSnapshot(
  s: EngineState,
  name: string,
  patch: { labels?: Record<string, string> | undefined; expireTime?: number | undefined },
  paths: readonly string[],
): Promise<SnapshotResource> {
  const snap = getSnapshot(s, name);
  if (paths.length === 0)
    throw invalid(
      'The update_mask in the UpdateSnapshotRequest must be set, and must be non-empty.',
      'update_mask',
    );
  const resource: SnapshotResource = { ...snap.resource };
  for (const path of paths) {
    if (path === 'labels') {
      if (patch.labels && Object.keys(patch.labels).length > 0) resource.labels = { ...patch.labels };
      else delete resource.labels;
    } else if (path === 'expire_time' || path === 'expireTime') {
      if (patch.expireTime === undefined) throw invalid('expire_time must be set.', 'snapshot.expire_time');
      resource.expireTime = patch.expireTime;
    } else {
      throw invalid(
        `Invalid update_mask provided in the UpdateSnapshotRequest: the field ${path} cannot be updated.`,
        'update_mask',
      );
    }
  }
  snap.resource = resource;
  await s.append({ type: REC.SNAP_PUT, snapshot: resource, sub: '' });
  return resource;
}

export async function deleteSnapshot(s: EngineState, name: string): Promise<void> {
  getSnapshot(s, name);
  s.snapshots.delete(name);
  s.policies.delete(name);
  await s.append({ type: REC.SNAP_DEL, name });
}

export function listSnapshots(s: EngineState, project: string): SnapshotResource[] {
  const prefix = `projects/${project}/snapshots/`;
  const out: SnapshotResource[] = [];
  for (const name of [...s.snapshots.keys()]) {
    if (!name.startsWith(prefix)) continue;
    try {
      out.push(getSnapshot(s, name).resource);
    } catch {
      // Expired just now: gone.
    }
  }
  return out.sort(byName);
}

/**
 * Seek to a publish time (messages published before it are acknowledged, those at or after it
 * that the subscription still has, or retains with `retainAckedMessages`, are not) or to a
 * snapshot (its messages, through the subscription's filter, are the unacknowledged ones).
 * Either way outstanding leases end: what is unacknowledged is delivered again.
 */
export async function seek(
  s: EngineState,
  name: string,
  target: { time?: number | undefined; snapshot?: string | undefined },
): Promise<void> {
  const sub = s.getSubscription(name);
  if (target.snapshot !== undefined) {
    const snap = getSnapshot(s, target.snapshot);
    if (snap.resource.topic !== sub.resource.topic)
      throw new ApiError(
        'FAILED_PRECONDITION',
        `The snapshot's topic (${snap.resource.topic}) is not the subscription's topic (${sub.resource.topic}).`,
      );
  } else if (target.time === undefined) {
    throw invalid('A seek needs a time or a snapshot.', 'target');
  }
  s.applySeek(sub, target.time, target.snapshot);
  await s.append({
    type: REC.SEEK,
    sub: sub.name,
    ...(target.snapshot !== undefined ? { snapshot: target.snapshot } : { time: target.time as number }),
  });
  scheduleDispatch(s, sub);
}
