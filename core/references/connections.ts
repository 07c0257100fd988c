/**
 * Runtime resources name settings connections by id (rules' actions, syncs' destinations): the
 * one check of such a reference. Pure. With reserved-names.ts, what a resource may refer to and
 * be called: below both the features that check their specs with it (rules, syncs, alerts) and
 * the registry that checks documents of every kind, so neither imports the other's base.
 */
import type { TSchema } from 'typebox';
import type { Connection } from '../../schemas/settings.ts';
import { compileValidator, type FieldViolation } from '../validation.ts';

/** Why a reference to connection `id` of type `want` is wrong, or undefined when it is right. */
export function connectionProblem(
  connections: readonly Connection[] | undefined,
  id: string,
  want: Connection['type'],
): string | undefined {
  const c = (connections ?? []).find((x) => x.id === id);
  if (!c) {
    const known = (connections ?? []).map((x) => `${x.id} (${x.type})`).join(', ') || 'none';
    return `unknown connection "${id}" (settings: ${known})`;
  }
  return c.type === want ? undefined : `"${id}" is a ${c.type} connection, not ${want}`;
}

/**
 * A checker of a resource spec that names connections: the schema first (its violations alone
 * when it fails), then `check`, which pushes what else is wrong.
 */
export function specChecker<T>(
  schema: TSchema,
  check: (
    spec: T,
    prefix: string,
    connections: readonly Connection[] | undefined,
    out: FieldViolation[],
  ) => void,
): (spec: unknown, prefix: string, connections: readonly Connection[] | undefined) => FieldViolation[] {
  const shape = compileValidator<T>(schema);
  return (spec, prefix, connections) => {
    const problems = shape.violations(spec, prefix);
    if (problems.length > 0) return problems;
    const out: FieldViolation[] = [];
    check(spec as T, prefix, connections, out);
    return out;
  };
}
