/**
 * The Cloud Run service name each pushed function is deployed under, by billing shape (a gen2
 * function's service carries the function's name). Pure; plan() and the Pulumi program use it.
 */
import type { Billing } from './cost.ts';

/**
 * `schedule` (and `forward-catalog`) is only ever a function and keeps its name. `store` and `forward` take one name per
 * shape: releases before this one named both shapes after the function (`store`), so a switch
 * either way in one `pulumi up` (Pulumi creates a replacement before it deletes what it
 * replaces) would create a service under a name the other shape still held ("already exists").
 * With `store-function` and `store-service`, neither shape's name is one the other shape or a
 * previous release holds (docs/deploy.md, "Upgrading").
 */
export function deployedServiceName(
  name: 'store' | 'forward' | 'schedule' | 'forward-catalog',
  billing: Billing,
): string {
  // forward-catalog is only ever a function too (issue #65), under its own name.
  if (name === 'schedule' || name === 'forward-catalog') return name;
  return `${name}-${billing === 'instance' ? 'service' : 'function'}`;
}
