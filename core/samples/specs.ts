/**
 * Inferred fields as an EventDefinition's `spec.fields` (core/definitions/definitions.ts): names made valid
 * field names, dotted JSON paths rebuilt as nested `object` fields, formats and enums carried over.
 */
import { type FieldSpec, isReservedFieldName } from '../definitions/definitions.ts';
import { fieldName, uniqueNames } from './names.ts';
import type { InferredField } from './sample.ts';

/** Definitions nest at most four levels (core/definitions/definitions.ts); deeper segments are joined with `_`. */
const MAX_LEVELS = 4;

/**
 * The definition path of each column: `user.email` stays a path of two field names, `E-Mail`
 * becomes `e_mail`; a dotted column under a name that is itself a column (`user` and
 * `user.email`) is flattened (`user_email`); a top-level name that is a context field or a
 * warehouse column (`user`, `source`, `topic`) gets `_data` (`user_data.email`). Paths are unique.
 */
export function fieldPaths(columns: readonly string[]): Map<string, string> {
  const split = columns.map((c) => {
    const parts = c.split('.').map(fieldName);
    return [...parts.slice(0, MAX_LEVELS - 1), parts.slice(MAX_LEVELS - 1).join('_')].filter((p) => p !== '');
  });
  const leaves = new Set(split.map((p) => p.join('.')));
  const paths = split.map((parts) => {
    const blocked = parts.some((_, i) => i > 0 && leaves.has(parts.slice(0, i).join('.')));
    const path = blocked ? parts.join('_') : parts.join('.');
    // A context field's name (`user`, `source`) is the contract's, not event data: kept as `user_data`.
    const [top = '', ...rest] = path.split('.');
    return isReservedFieldName(top) ? [`${top}_data`, ...rest].join('.') : path;
  });
  const unique = uniqueNames(paths);
  return new Map(columns.map((c, i) => [c, unique[i] as string]));
}

function leafSpec(f: InferredField, name: string, required: boolean): FieldSpec {
  const pii = f.format === 'email' || f.format === 'phone';
  return {
    name,
    type: f.type,
    ...(required && !f.nullable ? { required: true } : {}),
    ...(f.pattern ? { description: `The sample writes it as ${f.pattern}` } : {}),
    ...(f.format && !f.loose ? { format: f.format } : {}),
    ...(f.enum ? { enum: f.enum } : {}),
    ...(pii ? { pii: true } : {}),
  };
}

interface Group {
  readonly fields: Map<string, FieldSpec | Group>;
}
const isGroup = (v: FieldSpec | Group): v is Group => !('type' in v);

function toList(group: Group): FieldSpec[] {
  return [...group.fields].map(([name, v]) => (isGroup(v) ? { name, type: 'object', fields: toList(v) } : v));
}

/**
 * The fields of an EventDefinition spec for inferred columns. Nothing is `required` unless
 * `options.required` asks for it, and then only the columns that were never empty: a sample
 * rarely shows every case, and making a field optional later is a minor version while making it
 * required is a major one.
 */
export function toFieldSpecs(
  inferred: readonly InferredField[],
  options: { readonly required?: boolean } = {},
): FieldSpec[] {
  const paths = fieldPaths(inferred.map((f) => f.name));
  const root: Group = { fields: new Map() };
  for (const f of inferred) {
    const parts = (paths.get(f.name) as string).split('.');
    const leaf = parts.pop() as string;
    let group = root;
    for (const part of parts) {
      const next = group.fields.get(part);
      if (next && isGroup(next)) group = next;
      else {
        const created: Group = { fields: new Map() };
        group.fields.set(part, created);
        group = created;
      }
    }
    group.fields.set(leaf, leafSpec(f, leaf, options.required === true));
  }
  return toList(root);
}
