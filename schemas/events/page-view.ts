import { defineEvent } from './common.ts';

/** A page was shown; the page group of the context carries url, referrer and title. */
export const PageView = defineEvent('page_view', 1, 'A page was viewed (see the page context group)', {});
