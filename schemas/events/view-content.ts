import Type from 'typebox';
import { Currency, defineEvent, Value } from './common.ts';

/** Someone looked at a piece of content (a product page, an article). */
export const ViewContent = defineEvent('view_content', 1, 'Someone viewed a piece of content', {
  content_name: Type.String({ minLength: 1, maxLength: 512, description: 'What was viewed' }),
  content_type: Type.String({ minLength: 1, maxLength: 128, description: 'Kind of content, e.g. product' }),
  content_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Its id, e.g. a SKU' })),
  value: Type.Optional(Value),
  currency: Type.Optional(Currency),
});
