/**
 * A delivery's secrets (forward.ts, step 2): every role named in the destination's settings, and
 * every role its driver requires, read through the deps' `getSecret`.
 */
import type { Destination } from '../../schemas/settings.ts';
import { isPending, type MaybePromise } from '../maybe-async.ts';
import type { Driver } from '../platforms/driver.ts';
import { secretRefs } from '../platforms/webhook/formats.ts';

/** Reads one secret by name: its value, undefined when it has none. */
export type GetSecret = (name: string) => string | undefined | Promise<string | undefined>;

export type SecretsResult = { ok: true; values: Record<string, string> } | { ok: false; reason: string };

/**
 * Every role named in the settings must resolve, and so must every role the driver requires.
 * Synchronous while every value is at hand; a promise only once a read has to wait.
 */
export function readSecrets(
  destination: Readonly<Destination>,
  driver: Driver,
  getSecret: GetSecret,
): MaybePromise<SecretsResult> {
  // A webhook's signing key may be named by versions of its secret (formats.ts, secretRefs).
  const named = secretRefs(destination);
  for (const role of driver.requiredSecrets) {
    if (!Object.hasOwn(named, role))
      return {
        ok: false,
        reason: `secret role ${role} is not named in destinations.${destination.id}.secrets`,
      };
  }
  const roles = Object.entries(named);
  const values: Record<string, string> = {};
  for (let i = 0; i < roles.length; i++) {
    const [role, name] = roles[i] as [string, string];
    let value: string | undefined | Promise<string | undefined>;
    try {
      value = getSecret(name);
    } catch (err) {
      return unreadable(name, role, err);
    }
    if (isPending(value)) return readRest(roles, i, value, values, getSecret);
    const problem = accept(values, role, name, value);
    if (problem) return problem;
  }
  return { ok: true, values };
}

/** The slow path of readSecrets, from the first value that has to be awaited. */
async function readRest(
  roles: readonly [string, string][],
  from: number,
  first: Promise<string | undefined>,
  values: Record<string, string>,
  getSecret: GetSecret,
): Promise<SecretsResult> {
  for (let i = from; i < roles.length; i++) {
    const [role, name] = roles[i] as [string, string];
    let value: string | undefined;
    try {
      value = await (i === from ? first : getSecret(name));
    } catch (err) {
      return unreadable(name, role, err);
    }
    const problem = accept(values, role, name, value);
    if (problem) return problem;
  }
  return { ok: true, values };
}

function accept(
  values: Record<string, string>,
  role: string,
  name: string,
  value: string | undefined,
): SecretsResult | undefined {
  if (value === undefined || value === '')
    return { ok: false, reason: `secret ${name} (${role}) has no value` };
  values[role] = value;
  return undefined;
}

function unreadable(name: string, role: string, err: unknown): SecretsResult {
  return { ok: false, reason: `secret ${name} (${role}) could not be read: ${(err as Error).message}` };
}
