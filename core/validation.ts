/**
 * One place that turns typebox 1.x errors (JSON pointers, missing fields reported on
 * the parent, several errors per failed union) into our field paths without duplicates:
 * `/1/event_name` → `[1].event_name`, `/destinations/0/type` → `destinations[0].type`.
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Settings } from 'typebox/system';
import { Value } from 'typebox/value';

// typebox stops collecting errors at 8 by default: a union of more constants than that (the
// eleven destination types) lost its own "anyOf" error and read as the first constant expected. 32
// covers every union we declare with room for the other errors of the same value; the limit only
// costs anything on a value already refused.
Settings.Set({ maxErrors: 32 });

/** One problem with one field, in the shape of google.rpc.BadRequest.FieldViolation. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** The subset of a typebox validation error this module reads. */
export interface SchemaError {
  readonly keyword: string;
  readonly schemaPath: string;
  readonly instancePath: string;
  readonly params: Record<string, unknown>;
  readonly message: string;
}

/** A compiled validator that reports violations as data, never by throwing. */
export interface Validator<T> {
  check(value: unknown): value is T;
  violations(value: unknown, prefix?: string): FieldViolation[];
}

/**
 * Returns a validator whose errors are our field paths; the schema is compiled once, on first
 * use rather than at import, so a module that declares validators costs nothing at cold
 * start until one is needed (compiling the settings and platform schemas at import was ~70-100
 * ms of each function bundle's load).
 */
export function compileValidator<T>(schema: TSchema): Validator<T> {
  let compiled: ReturnType<typeof Compile> | undefined;
  const get = () => {
    compiled ??= Compile(schema);
    return compiled;
  };
  return {
    check: (value: unknown): value is T => get().Check(value),
    violations: (value: unknown, prefix = '') => {
      const c = get();
      return c.Check(value) ? [] : toViolations([...c.Errors(value)] as SchemaError[], prefix);
    },
  };
}

/**
 * A validator that interprets the schema instead of compiling it: the same answers and
 * errors, without code generation. For schemas checked about once per process (the settings
 * at cold start), where compiling costs far more than the one check.
 */
export function interpretedValidator<T>(schema: TSchema, words: ViolationWords = {}): Validator<T> {
  return {
    check: (value: unknown): value is T => Value.Check(schema, value),
    violations: (value: unknown, prefix = '') =>
      Value.Check(schema, value)
        ? []
        : toViolations([...Value.Errors(schema, value)] as unknown as SchemaError[], prefix, words),
  };
}

/** Messages in words for patterns a person cannot be expected to read (pattern → message). */
export interface ViolationWords {
  readonly patterns?: ReadonlyMap<string, string>;
}

/** Turns a JSON pointer into a field path: `/a/0/b` → `a[0].b`; a prefix is prepended. */
export function pointerToField(pointer: string, prefix = ''): string {
  let out = prefix;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

function join(field: string, key: string): string {
  return pointerToField(`/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, field);
}

/**
 * Maps raw typebox errors to violations: one per field, the most useful message kept.
 * Union failures become "expected one of …" when every branch is a constant, and the
 * per-branch noise under a failed union is dropped.
 */
export function toViolations(
  errors: readonly SchemaError[],
  prefix = '',
  words: ViolationWords = {},
): FieldViolation[] {
  const unionPaths = new Set(
    errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath),
  );
  const out = new Map<string, FieldViolation>();
  const add = (field: string, description: string) => {
    // The first message for a field wins: typebox reports the specific one before the generic one.
    const key = field;
    if (!out.has(key)) out.set(key, { field: field === '' ? '(root)' : field, description });
  };
  for (const e of errors) {
    const field = pointerToField(e.instancePath, prefix);
    if (e.keyword === 'boolean') {
      // additionalProperties:false is reported on the extra key itself, sometimes on the parent too.
      if (e.schemaPath.endsWith('additionalProperties')) add(field, 'is not a known field');
      continue;
    }
    if (e.keyword === 'required') {
      for (const name of (e.params['requiredProperties'] as string[] | undefined) ?? []) {
        add(join(field, name), 'is required');
      }
      continue;
    }
    if (e.keyword === 'additionalProperties') {
      for (const name of (e.params['additionalProperties'] as string[] | undefined) ?? []) {
        add(join(field, name), 'is not a known field');
      }
      continue;
    }
    if (unionPaths.has(e.instancePath) && e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      const allowed = errors
        .filter((b) => b.instancePath === e.instancePath && b.keyword === 'const')
        .map((b) => JSON.stringify(b.params['allowedValue']));
      const branches = errors.filter((b) => b.instancePath === e.instancePath && b.keyword !== e.keyword);
      if (allowed.length > 0 && allowed.length === branches.length) {
        add(field, `expected one of ${allowed.join(', ')}`);
      } else {
        add(field, 'does not match any allowed form');
      }
      continue;
    }
    add(field, describe(e, words));
  }
  return [...out.values()];
}

function describe(e: SchemaError, words: ViolationWords): string {
  switch (e.keyword) {
    case 'pattern':
      return words.patterns?.get(String(e.params['pattern'])) ?? e.message;
    case 'type':
      return `expected ${String(e.params['type'] ?? 'another type')}`;
    case 'const':
      return `expected ${JSON.stringify(e.params['allowedValue'])}`;
    case 'enum':
      return `expected one of ${((e.params['allowedValues'] as unknown[] | undefined) ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return e.message;
  }
}
