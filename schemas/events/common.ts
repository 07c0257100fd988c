/**
 * Building blocks shared by the standard catalogue. Event data objects allow extra fields
 * (producers add their own; they are stored in `event_data`), but the declared ones are typed.
 */
import Type, { type Static, type TObject, type TProperties } from 'typebox';

/** A versioned event type: the name, its schema version and the schema of its event data. */
export interface EventType<S extends TObject = TObject> {
  readonly name: string;
  readonly version: number;
  readonly description: string;
  readonly schema: S;
}

/** Declares an event type; the data schema keeps extra fields (stored, not validated). */
export function defineEvent<P extends TProperties>(
  name: string,
  version: number,
  description: string,
  properties: P,
): EventType<TObject<P>> {
  return Object.freeze({
    name,
    version,
    description,
    schema: Type.Object(properties, {
      additionalProperties: true,
      title: `${name} v${version}`,
      description,
    }),
  });
}

export const Value = Type.Number({ minimum: -1e15, maximum: 1e15, description: 'Monetary value' });
export const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. EUR' });

export const Item = Type.Object(
  {
    item_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'SKU or product id' })),
    item_name: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Product name' })),
    item_category: Type.Optional(Type.String({ maxLength: 256 })),
    item_brand: Type.Optional(Type.String({ maxLength: 256 })),
    price: Type.Optional(Value),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000000 })),
  },
  { additionalProperties: true, description: 'A product line' },
);
export type Item = Static<typeof Item>;

export const Items = Type.Array(Item, { maxItems: 200, description: 'Product lines' });
