/**
 * A party's own times are not the event's (docs/creator-inference.md, "A party's own time",
 * issue #94). A payment or an invoice often carries the customer it is for, with that customer's
 * record whole: `invoice.customer.created_at` is when the customer was first saved, months
 * before the invoice, and a person's, a merchant's or a signer's `createdAt` says when their
 * account was made, not when the event happened. A time inside an object a party's name names
 * (`customer`, `user`, `signer`, `merchant`: party.ts `partyOf`, the time's own name aside) ranks
 * below every time outside such objects; where the payload holds no other (a subscriber's record
 * sent whole, its `subscriber.created_at`), it is still taken. Pure.
 */
import { partyOf } from './party.ts';

/** How far a party's time ranks below the others: under any plain time, above a delivery's. */
export const PARTY_TIME_DROP = 6;

/** Why a time column is a party's own record's and not the event's (module comment), or undefined. */
export function partyTime(column: string): string | undefined {
  const p = partyOf(column);
  if (!p || p.own) return undefined;
  return `of ${p.segment}, the ${p.party === 'person' ? "person's" : p.party === 'business' ? "business's" : "related person's"} own record (when it was saved or changed), not when the event happened`;
}
