/**
 * IAM policies of topics, subscriptions and snapshots: stored, logged and returned as set. With
 * `--iam` a stored policy grants too, with the access file's (access.ts): a binding names a role
 * of emulators/common/iam-roles.ts and members (`allUsers` included), as Google evaluates it; it
 * can only add to what the access file allows.
 */
import type { IamPolicy as EnforcedPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { REC } from './codec.ts';
import type { EngineState } from './engine-state.ts';
import { invalid } from './errors.ts';
import { getSnapshot } from './snapshots.ts';

export interface IamPolicy {
  version: number;
  bindings: unknown[];
  etag: string;
}

function checkIamResource(s: EngineState, resource: string): void {
  const kind = resource.split('/')[2];
  if (kind === 'topics') s.getTopic(resource);
  else if (kind === 'subscriptions') s.getSubscription(resource);
  else if (kind === 'snapshots') getSnapshot(s, resource);
  else throw invalid(`Invalid resource name: (name=${resource})`, 'resource');
}

/** The policy as stored: `{version, bindings, etag}` with the etag in base64. */
export function getIamPolicy(s: EngineState, resource: string): IamPolicy {
  checkIamResource(s, resource);
  return (s.policies.get(resource) as IamPolicy | undefined) ?? { version: 0, bindings: [], etag: 'ACAB' };
}

export async function setIamPolicy(
  s: EngineState,
  resource: string,
  policy: { version?: number; bindings?: unknown[] },
): Promise<IamPolicy> {
  checkIamResource(s, resource);
  const stored: IamPolicy = {
    version: policy.version ?? 0,
    bindings: policy.bindings ?? [],
    etag: Buffer.from(String(Date.now())).toString('base64'),
  };
  s.policies.set(resource, stored);
  await s.append({ type: REC.IAM_PUT, resource, policy: stored });
  return stored;
}

/** The stored policy of `resource` as enforcement reads it (bindings of a role and members only). */
export function enforcedPolicy(s: EngineState, resource: string): EnforcedPolicy | undefined {
  const stored = s.policies.get(resource) as IamPolicy | undefined;
  if (!stored) return undefined;
  const bindings = stored.bindings.flatMap((b) => {
    const x = (b ?? {}) as { role?: unknown; members?: unknown; condition?: { expression?: unknown } };
    if (typeof x.role !== 'string' || !Array.isArray(x.members)) return [];
    const members = x.members.filter((m): m is string => typeof m === 'string');
    const expression = x.condition?.expression;
    return [
      { role: x.role, members, ...(typeof expression === 'string' ? { condition: { expression } } : {}) },
    ];
  });
  return { resource, bindings };
}
