/**
 * `GET /v1/tag-cmp.js`: the consent platform reader (cmp.ts) as its own script, which the tag
 * loads only on a page with a CMP API or Consent Mode commands (cmp-loader.ts) and which hands
 * `watchCmp` back through the global the tag set before asking for it.
 */
import { watchCmp } from './cmp.ts';
import { CMP_HANDOFF } from './cmp-loader.ts';

const handoff = (window as unknown as Record<string, unknown>)[CMP_HANDOFF];
if (typeof handoff === 'function') handoff(watchCmp);
