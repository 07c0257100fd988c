/** Lead, sign-up, subscription and contact events of the standard catalogue. */
import Type from 'typebox';
import { Currency, defineEvent, Value } from './common.ts';

export const Lead = defineEvent('lead', 1, 'Someone became a lead (a form, a quote request)', {
  lead_type: Type.Optional(Type.String({ maxLength: 128, description: 'e.g. quote, demo' })),
  value: Type.Optional(Value),
  currency: Type.Optional(Currency),
});

export const SignUp = defineEvent('sign_up', 1, 'An account was created', {
  method: Type.Optional(Type.String({ maxLength: 128, description: 'e.g. email, google' })),
});

export const Subscribe = defineEvent('subscribe', 1, 'A paid subscription started', {
  plan: Type.Optional(Type.String({ maxLength: 256, description: 'Plan name or id' })),
  value: Type.Optional(Value),
  currency: Type.Optional(Currency),
  predicted_ltv: Type.Optional(Value),
});

export const Contact = defineEvent('contact', 1, 'Someone contacted the business', {
  method: Type.Optional(Type.String({ maxLength: 128, description: 'e.g. phone, email, chat' })),
});
