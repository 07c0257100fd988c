/**
 * A list of addresses (issue #94, docs/creator-inference.md#a-list-of-addresses). A mail's
 * `to: ["ana@example.com"]`, a delivery's `recipients`, a meeting's `guests`, a lead's `email`
 * written as a list: the values are lists of e-mail addresses, which the reading step keeps as
 * JSON, so no rule read them as the person's e-mail. The translator reads a list's first item
 * (`{ path: "0" }`), so such a column can fill the person's e-mail with its first address
 * (draft.ts). Pure.
 */
import type { InferredField } from './sample.ts';
import { VOTE, valueVotes } from './values.ts';

const isAddress = (v: unknown): boolean => {
  const votes: string[] = [];
  valueVotes(v, votes);
  return typeof v === 'string' && votes.includes(VOTE.email);
};

/** Whether every value of the column in the sample is a list of e-mail addresses, none empty. */
export function isAddressList(f: InferredField): boolean {
  return (
    f.type === 'json' &&
    f.examples.length > 0 &&
    f.examples.every((v) => Array.isArray(v) && v.length > 0 && v.every(isAddress))
  );
}
