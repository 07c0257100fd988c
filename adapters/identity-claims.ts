/**
 * The first sighting of an identity, as an object in the registry bucket (`identities/<digest>`,
 * core/warehouse/store.ts, ClaimIdentity): `store` creates it only if absent (`ifGenerationMatch=0`)
 * for an event whose time the server stamped and whose id the producer gave. The first copy's
 * create succeeds; a producer's retry of the same body (a new message with the same identity
 * digest) is refused with 412 and reads the first copy's time and message instead, so its row
 * would be the first one's and it is recognised as a copy. The bucket's lifecycle rule deletes
 * the objects after IDENTITY_CLAIM_DAYS (core/plan.ts, infra/registry.ts): a retry later than that is a new
 * event (docs/storage.md, "One event, one row").
 *
 * One create per such event (about $5 per million at Cloud Storage's class A list price); events
 * with a producer's time, or without a producer's id, never come here.
 */
import type { Bucket } from '@google-cloud/storage';
import { IDENTITY_CLAIMS_PREFIX } from '../core/plan.ts';
import type { ClaimAnswer, ClaimIdentity, IdentityClaim } from '../core/warehouse/store.ts';

const statusOf = (err: unknown): unknown => (err as { code?: unknown }).code;
const DIGEST = /^[0-9a-f]{64}$/;

interface Stored {
  readonly event_time: string;
  readonly message_id: string;
  readonly claimed_at: number;
}

function isStored(v: unknown): v is Stored {
  const o = v as Partial<Stored> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.event_time === 'string' &&
    typeof o.message_id === 'string' &&
    typeof o.claimed_at === 'number'
  );
}

export function createIdentityClaims(
  bucket: () => Bucket | Promise<Bucket>,
  opts: { readonly now?: () => number } = {},
): ClaimIdentity {
  const now = opts.now ?? Date.now;
  const attempt = async (c: IdentityClaim, tries: number): Promise<ClaimAnswer> => {
    if (!DIGEST.test(c.digest)) throw new Error(`not an identity digest: ${JSON.stringify(c.digest)}`);
    const file = (await bucket()).file(`${IDENTITY_CLAIMS_PREFIX}${c.digest}`);
    const record: Stored = { event_time: c.event_time, message_id: c.message_id, claimed_at: now() };
    try {
      await file.save(JSON.stringify(record), {
        resumable: false,
        contentType: 'application/json',
        preconditionOpts: { ifGenerationMatch: 0 },
      });
      return { first: true };
    } catch (err) {
      if (statusOf(err) !== 412) throw err;
    }
    try {
      const [bytes] = await file.download();
      const first: unknown = JSON.parse(bytes.toString('utf8'));
      if (!isStored(first)) throw new Error(`${IDENTITY_CLAIMS_PREFIX}${c.digest} is not a claim`);
      return { first: false, ...first };
    } catch (err) {
      // Deleted between the create and the read (its lifecycle ran out): claim it again, once.
      if (statusOf(err) === 404 && tries > 0) return attempt(c, tries - 1);
      throw err;
    }
  };
  return (claim) => attempt(claim, 1);
}
