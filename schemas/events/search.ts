import Type from 'typebox';
import { defineEvent } from './common.ts';

/** A site search. */
export const Search = defineEvent('search', 1, 'Someone searched', {
  search_term: Type.String({ minLength: 1, maxLength: 1024, description: 'What was searched for' }),
});
