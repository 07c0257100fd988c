/**
 * A runtime resource as users write it (docs/studio.md): one YAML document of a
 * resource file, or one element of the admin API's `documents`. The `spec` of each kind is
 * checked by that kind's own schema as the kinds arrive; here only its shape (an object).
 */
import { type Static, Type } from 'typebox';

export const REGISTRY_KINDS = ['EventDefinition', 'Translator', 'Sync', 'Rule', 'Query', 'Alert'] as const;
export type RegistryKind = (typeof REGISTRY_KINDS)[number];

/** Names of translators, syncs, rules, queries and alerts; event definitions follow the event naming rule. */
export const RESOURCE_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,62}$';

export const ResourceDocSchema = Type.Object(
  {
    kind: Type.Union(
      REGISTRY_KINDS.map((k) => Type.Literal(k)),
      { description: 'EventDefinition | Translator | Sync | Rule | Query | Alert' },
    ),
    name: Type.String({ minLength: 1, maxLength: 63 }),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
    owner: Type.Optional(
      Type.String({ maxLength: 256, description: 'Declared only; versions record their author' }),
    ),
    spec: Type.Record(Type.String(), Type.Unknown(), { description: 'Per kind' }),
  },
  { additionalProperties: false },
);

export type ResourceDocInput = Static<typeof ResourceDocSchema>;
