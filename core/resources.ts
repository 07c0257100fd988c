/**
 * Checks of runtime resource documents before they reach the registry: the shape (schema), the
 * name rule of each kind, and that the built-in catalogue is not redefined. Pure.
 */
import { eventNameProblem, lookupEvent } from '../schemas/catalogue.ts';
import { RESOURCE_NAME_PATTERN, ResourceDocSchema } from '../schemas/resource.ts';
import type { Connection, Destination } from '../schemas/settings.ts';
import { breakingChanges, definitionViolations } from './definitions.ts';
import { checkMappings } from './platforms/mapping-check.ts';
import { MAPPED_TYPES, type MappedType } from './platforms/mappings.ts';
import type { ResourceDoc } from './registry.ts';
import { ruleViolations } from './rules.ts';
import { syncViolations } from './syncs.ts';
import { translatorViolations } from './translate/spec.ts';
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
    return [
      ...definitionViolations(d.spec, `${prefix}.spec`),
      ...definitionMappingViolations(d.name, d.spec, `${prefix}.spec.mappings`),
    ];
  } else if (!namePattern.test(d.name)) {
    return [{ field, description: `must match ${RESOURCE_NAME_PATTERN}` }];
  }
  if (d.kind === 'Rule') return ruleViolations(d.spec, `${prefix}.spec`, context.connections);
  if (d.kind === 'Sync') return syncViolations(d.spec, `${prefix}.spec`, context.connections);
  if (d.kind === 'Translator') return translatorViolations(d.spec, `${prefix}.spec`);
  return queryViolations(d.spec, `${prefix}.spec`);
}

/** The longest saved query (BigQuery takes 1 MB; a console query is far shorter). */
export const QUERY_MAX_CHARS = 100_000;

/**
 * A saved query's spec: `{sql}`, one query of the console (run there as a single SELECT, checked
 * by a dry run when it runs, since only BigQuery knows the statement type).
 */
function queryViolations(spec: unknown, prefix: string): FieldViolation[] {
  const s = spec as Record<string, unknown>;
  const extra = Object.keys(s).filter((k) => k !== 'sql');
  if (extra.length > 0)
    return [{ field: `${prefix}.${extra[0]}`, description: 'is not a field of a Query (sql)' }];
  const sql = s['sql'];
  if (typeof sql !== 'string' || sql.trim() === '' || sql.length > QUERY_MAX_CHARS)
    return [
      { field: `${prefix}.sql`, description: `must be one SQL query of 1 to ${QUERY_MAX_CHARS} characters` },
    ];
  return [];
}

/**
 * A definition's `mappings` (destination type → a mapping in the mapping language): the same
 * checks as a destination's `mappings` in the settings, where a custom event must name its
 * target `event`.
 */
function definitionMappingViolations(name: string, spec: unknown, prefix: string): FieldViolation[] {
  const mappings = (spec as { mappings?: unknown }).mappings;
  if (mappings === null || typeof mappings !== 'object' || Array.isArray(mappings)) return [];
  const out: FieldViolation[] = [];
  const destinations: Destination[] = [];
  const at: string[] = [];
  for (const [type, mapping] of Object.entries(mappings)) {
    if (!(MAPPED_TYPES as readonly string[]).includes(type)) {
      out.push({ field: `${prefix}.${type}`, description: `must be one of ${MAPPED_TYPES.join(', ')}` });
      continue;
    }
    at.push(`${prefix}.${type}`);
    destinations.push({
      id: `definition-${type}`,
      type: type as MappedType,
      mappings: { [name]: mapping as NonNullable<Destination['mappings']>[string] },
    } as Destination);
  }
  for (const v of checkMappings({ destinations })) {
    const m = /^destinations\[(\d+)\]\.mappings\.[a-z0-9_]+(.*)$/.exec(v.field);
    out.push({
      field: m ? `${at[Number(m[1])]}${m[2]}` : `${prefix} ${v.field}`,
      description: v.description,
    });
  }
  return out;
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
