/** The shopping funnel of the standard catalogue. */
import Type from 'typebox';
import { Currency, defineEvent, Items, Value } from './common.ts';

export const AddToCart = defineEvent('add_to_cart', 1, 'Products were added to a cart', {
  items: Type.Array(Items.items, { minItems: 1, maxItems: 200, description: 'What was added' }),
  value: Type.Optional(Value),
  currency: Type.Optional(Currency),
});

export const BeginCheckout = defineEvent('begin_checkout', 1, 'Checkout started', {
  items: Type.Optional(Items),
  value: Type.Optional(Value),
  currency: Type.Optional(Currency),
  coupon: Type.Optional(Type.String({ maxLength: 256 })),
});

export const AddPaymentInfo = defineEvent('add_payment_info', 1, 'Payment details were given', {
  payment_type: Type.Optional(Type.String({ maxLength: 128, description: 'e.g. card' })),
  items: Type.Optional(Items),
  value: Type.Optional(Value),
  currency: Type.Optional(Currency),
});

export const Purchase = defineEvent('purchase', 1, 'An order was placed', {
  transaction_id: Type.String({ minLength: 1, maxLength: 256, description: 'Order id' }),
  value: Value,
  currency: Currency,
  items: Type.Optional(Items),
  tax: Type.Optional(Value),
  shipping: Type.Optional(Value),
  coupon: Type.Optional(Type.String({ maxLength: 256 })),
});
