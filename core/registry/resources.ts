/**
 * Checks of runtime resource documents before they reach the registry: the shape (schema), the
 * name rule of each kind, and that the built-in catalogue is not redefined. Pure.
 */
import { eventNameProblem, lookupEvent } from '../../schemas/catalogue.ts';
import { RESOURCE_NAME_PATTERN, ResourceDocSchema } from '../../schemas/resource.ts';
import type { Connection, Destination } from '../../schemas/settings.ts';
import { alertViolations } from '../alerts/alerts.ts';
import { breakingChanges, definitionViolations } from '../definitions/definitions.ts';
import { checkMappings } from '../platforms/mapping-check.ts';
import { MAPPED_TYPES, type MappedType } from '../platforms/mappings.ts';
import { reservedNameProblem } from '../references/reserved-names.ts';
import { ruleViolations } from '../rules/rules.ts';
import { audienceSettingViolations } from '../syncs/audience-settings.ts';
import { modelSelect, syncViolations } from '../syncs/syncs.ts';
import { translatorViolations } from '../translate/spec.ts';
import { compileValidator, type FieldViolation } from '../validation.ts';
import type { ResourceDoc } from './registry.ts';

const shape = compileValidator<ResourceDoc>(ResourceDocSchema);
const namePattern = new RegExp(RESOURCE_NAME_PATTERN);

/** The violations of one document (`documents[i].…` with the given prefix), none when it is valid. */
export interface ResourceContext {
  /** The settings' connections (rules, syncs and alerts name them by id). */
  readonly connections?: readonly Connection[];
  /** The ids of the settings' destinations (an alert's failure rate names one); unchecked without them. */
  readonly destinations?: readonly string[];
  /**
   * The settings' `segment_action` destinations, id → Segment folder: an audience sync's `settings`
   * must give what each connected one asks of an audience (audience-settings.ts); unchecked without.
   */
  readonly catalogDestinations?: Readonly<Record<string, string>>;
}

export function resourceViolations(
  doc: unknown,
  prefix: string,
  context: ResourceContext = {},
): FieldViolation[] {
  // Before any recursive check: a rule's criteria 100,000 levels deep overflowed the stack.
  if (nestedDeeperThan(doc, MAX_DOCUMENT_DEPTH))
    return [
      { field: prefix, description: `nests objects and lists more than ${MAX_DOCUMENT_DEPTH} levels deep` },
    ];
  const problems = shape.violations(doc, prefix);
  if (problems.length > 0) return problems;
  const d = doc as ResourceDoc;
  const field = `${prefix}.name`;
  if (d.kind === 'EventDefinition') {
    const why =
      eventNameProblem(d.name) ??
      (lookupEvent(d.name)
        ? `${d.name} is a built-in catalogue event: it cannot be redefined; name yours differently, or fill ${d.name} itself with a Translator (spec.event: ${d.name}, no definition)`
        : undefined);
    if (why) return [{ field, description: why }];
  } else if (!namePattern.test(d.name)) {
    return [{ field, description: `must match ${RESOURCE_NAME_PATTERN}` }];
  }
  const reserved = reservedNameProblem(d.kind, d.name);
  if (reserved) return [{ field, description: reserved }];
  if (d.kind === 'EventDefinition')
    return [
      ...definitionViolations(d.spec, `${prefix}.spec`),
      ...definitionMappingViolations(d.name, d.spec, `${prefix}.spec.mappings`),
    ];
  if (d.kind === 'Rule') return ruleViolations(d.spec, `${prefix}.spec`, context.connections);
  if (d.kind === 'Sync') {
    const problems = syncViolations(d.spec, `${prefix}.spec`, context.connections);
    return [...problems, ...audienceSettingViolations(d.spec, `${prefix}.spec`, context.catalogDestinations)];
  }
  if (d.kind === 'Translator') return translatorViolations(d.spec, `${prefix}.spec`);
  if (d.kind === 'Alert')
    return alertViolations(d.spec, `${prefix}.spec`, context.connections, context.destinations);
  return queryViolations(d.spec, `${prefix}.spec`);
}

/**
 * How deep a resource document may nest objects and lists: a rule's criteria five groups deep
 * or a definition's fields at their four levels use about a dozen.
 */
export const MAX_DOCUMENT_DEPTH = 48;

/** Whether a parsed value nests objects and arrays deeper than `max` (iterative: no recursion to overflow). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, depth] = item;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
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

/**
 * The most resources one apply may hold: a project's whole catalogue of definitions, translators,
 * rules, syncs, alerts and queries is applied in a few requests, and each apply reads and writes
 * the index of every kind it touches once (docs/registry.md, "Writing").
 */
export const MAX_APPLY_DOCUMENTS = 100;
/**
 * The most bytes (UTF-8 JSON) one apply's documents may hold: under the studio's 4 MiB body cap
 * (studio/request.ts), and room for twenty queries at their longest.
 */
export const MAX_APPLY_BYTES = 2 << 20;

/** Why `docs` are too many or too large for one apply, on the field `documents`; undefined when they fit. */
export function applyCapViolation(docs: readonly unknown[]): FieldViolation | undefined {
  const field = 'documents';
  if (docs.length > MAX_APPLY_DOCUMENTS)
    return {
      field,
      description: `at most ${MAX_APPLY_DOCUMENTS} resources per apply (sent ${docs.length}): split them into several applies`,
    };
  // A document nested too deep is refused on its own (resourceViolations); it is not serialized here.
  if (docs.some((d) => nestedDeeperThan(d, MAX_DOCUMENT_DEPTH))) return undefined;
  const encoder = new TextEncoder();
  const bytes = docs.reduce<number>((sum, d) => sum + encoder.encode(JSON.stringify(d) ?? '').length, 0);
  if (bytes > MAX_APPLY_BYTES)
    return {
      field,
      description: `at most ${MAX_APPLY_BYTES >> 20} MiB of documents per apply (sent ${bytes} bytes): split them into several applies`,
    };
  return undefined;
}

/** Violations of a whole apply: each document, and names given twice. */
export function applyViolations(docs: readonly unknown[], context: ResourceContext = {}): FieldViolation[] {
  // Before any document is checked: the cap bounds the work of the checks as well as the write.
  const cap = applyCapViolation(docs);
  if (cap) return [cap];
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

/** SQL a document holds, and the field it is in (`documents[i].spec.…`). */
export interface ResourceSql {
  readonly field: string;
  readonly sql: string;
}

/**
 * The SQL each document runs, as it will run (a sync's model as the SELECT a run reads): a
 * scheduled rule's query, a sync's model, a saved query. The studio has BigQuery dry-run each at
 * apply (a single SELECT reading this project only), so a DELETE, a script or `EXPORT DATA`
 * is refused then rather than failing chunk after chunk once scheduled. Call on checked documents.
 */
export function resourceSql(docs: readonly ResourceDoc[]): ResourceSql[] {
  const out: ResourceSql[] = [];
  docs.forEach((d, i) => {
    const spec = d.spec as Record<string, unknown>;
    const at = `documents[${i}].spec`;
    if (d.kind === 'Query') out.push({ field: `${at}.sql`, sql: String(spec['sql']) });
    if (d.kind === 'Sync') out.push({ field: `${at}.model`, sql: modelSelect(String(spec['model'])) });
    const trigger = spec['trigger'] as Record<string, unknown> | undefined;
    if (d.kind === 'Rule' && typeof trigger?.['sql'] === 'string')
      out.push({ field: `${at}.trigger.sql`, sql: trigger['sql'] });
  });
  return out;
}

/** What breaks readers when a resource changes: for definitions, the compatibility rule. */
export function resourceBreakingChanges(from: ResourceDoc, to: ResourceDoc): readonly string[] {
  return from.kind === 'EventDefinition' ? breakingChanges(from.spec, to.spec) : [];
}
