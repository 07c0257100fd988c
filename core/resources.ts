/**
 * Checks of runtime resource documents before they reach the registry: the shape (schema), the
 * name rule of each kind, and that the built-in catalogue is not redefined. Pure.
 */
import { eventNameProblem, lookupEvent } from '../schemas/catalogue.ts';
import { RESOURCE_NAME_PATTERN, ResourceDocSchema } from '../schemas/resource.ts';
import type { Connection } from '../schemas/settings.ts';
import { breakingChanges, definitionViolations } from './definitions.ts';
import type { ResourceDoc } from './registry.ts';
import { ruleViolations } from './rules.ts';
import { syncViolations } from './syncs.ts';
import { compileValidator, type FieldViolation } from './validation.ts';

const shape = compileValidator<ResourceDoc>(ResourceDocSchema);
const namePattern = new RegExp(RESOURCE_NAME_PATTERN);

/** The violations of one document (`documents[i].…` with the given prefix), none when it is valid. */
export interface ResourceContext {
  /** The settings' connections (rules and syncs name them by id). */
  readonly connections?: readonly Connection[];
}

export function resourceViolations(
  doc: unknown,
  prefix: string,
  context: ResourceContext = {},
): FieldViolation[] {
  const problems = shape.violations(doc, prefix);
  if (problems.length > 0) return problems;
  const d = doc as ResourceDoc;
  const field = `${prefix}.name`;
  if (d.kind === 'EventDefinition') {
    const why = eventNameProblem(d.name);
    if (why) return [{ field, description: why }];
    if (lookupEvent(d.name))
      return [
        {
          field,
          description: `${d.name} is a built-in catalogue event: it cannot be redefined; name yours differently`,
        },
      ];
    return definitionViolations(d.spec, `${prefix}.spec`);
  } else if (!namePattern.test(d.name)) {
    return [{ field, description: `must match ${RESOURCE_NAME_PATTERN}` }];
  }
  if (d.kind === 'Rule') return ruleViolations(d.spec, `${prefix}.spec`, context.connections);
  if (d.kind === 'Sync') return syncViolations(d.spec, `${prefix}.spec`, context.connections);
  return [];
}

/** Violations of a whole apply: each document, and names given twice. */
export function applyViolations(docs: readonly unknown[], context: ResourceContext = {}): FieldViolation[] {
  const out = docs.flatMap((d, i) => resourceViolations(d, `documents[${i}]`, context));
  const seen = new Map<string, number>();
  docs.forEach((d, i) => {
    const r = d as Partial<ResourceDoc>;
    const key = `${r.kind}/${r.name}`;
    const first = seen.get(key);
    if (first !== undefined)
      out.push({ field: `documents[${i}].name`, description: `${key} is also documents[${first}]` });
    else seen.set(key, i);
  });
  return out;
}

/** What breaks readers when a resource changes: for definitions, the compatibility rule. */
export function resourceBreakingChanges(from: ResourceDoc, to: ResourceDoc): readonly string[] {
  return from.kind === 'EventDefinition' ? breakingChanges(from.spec, to.spec) : [];
}
