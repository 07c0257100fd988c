/**
 * Which object events a catalog change is, as Cloud Storage's Pub/Sub notifications name them
 * (docs/storage-emulator.md, "Notifications"), worked out from the record about to be committed
 * and the state before it: the catalog (catalog.ts) is where every write passes, so every upload,
 * copy, compose, move, restore, patch and delete is seen here and nowhere else.
 *
 * - a new generation: OBJECT_FINALIZE (with `overwroteGeneration` when it replaces a live one);
 *   the live generation it replaces is OBJECT_ARCHIVE in a bucket with versioning (it becomes
 *   noncurrent), else OBJECT_DELETE, both with `overwrittenByGeneration`;
 * - new metadata of an existing generation (patch, update, an ACL or hold change):
 *   OBJECT_METADATA_UPDATE;
 * - a deletion: OBJECT_ARCHIVE when the live generation becomes noncurrent, else OBJECT_DELETE
 *   (a soft-deleted generation is deleted as far as the bucket's readers see: our reading).
 */
import type { NotificationEvent, ObjectState } from './records.ts';

/** The catalog's buckets before the change (catalog.ts), as far as events need them. */
export interface CatalogView {
  readonly buckets: ReadonlyMap<
    string,
    {
      readonly state: { readonly versioning: boolean };
      readonly objects: ReadonlyMap<
        string,
        { readonly live?: ObjectState; readonly old: readonly ObjectState[] }
      >;
    }
  >;
}

/** The catalog's records (catalog.ts: CatalogRecord), as far as events need them. */
export type ChangeRecord =
  | { readonly t: 'o'; readonly o: ObjectState; readonly nc?: true }
  | {
      readonly t: '-o';
      readonly bucket: string;
      readonly name: string;
      readonly generation: number;
      readonly keep: boolean;
      readonly time: string;
    }
  | { readonly t: 'all'; readonly recs: readonly ChangeRecord[] }
  | { readonly t: 'b' | '-b' | 'so' | '-so' | 'db' | 'rb' | 'u' | '-u' };

export interface ObjectEvent {
  readonly type: NotificationEvent;
  /** The generation the event is about, as it is after the change. */
  readonly object: ObjectState;
  /** RFC 3339. */
  readonly time: string;
  readonly overwroteGeneration?: number;
  readonly overwrittenByGeneration?: number;
}

/** The events `rec` makes, given the catalog as it is before `rec` is applied. */
export function objectEvents(c: CatalogView, rec: ChangeRecord): ObjectEvent[] {
  switch (rec.t) {
    case 'o':
      return rec.nc ? [] : written(c, rec.o);
    case '-o':
      return deleted(c, rec.bucket, rec.name, rec.generation, rec.keep, rec.time);
    case 'all':
      return rec.recs.flatMap((r) => objectEvents(c, r));
    default:
      return [];
  }
}

function written(c: CatalogView, o: ObjectState): ObjectEvent[] {
  const entry = c.buckets.get(o.bucket);
  if (!entry) return [];
  const v = entry.objects.get(o.name);
  if (v?.live?.generation === o.generation || v?.old.some((x) => x.generation === o.generation))
    return [{ type: 'OBJECT_METADATA_UPDATE', object: o, time: o.updated }];
  const prev = v?.live;
  const finalize: ObjectEvent = {
    type: 'OBJECT_FINALIZE',
    object: o,
    time: o.timeCreated,
    ...(prev ? { overwroteGeneration: prev.generation } : {}),
  };
  if (!prev) return [finalize];
  const replaced: ObjectEvent = entry.state.versioning
    ? {
        type: 'OBJECT_ARCHIVE',
        object: { ...prev, timeDeleted: o.timeCreated },
        time: o.timeCreated,
        overwrittenByGeneration: o.generation,
      }
    : { type: 'OBJECT_DELETE', object: prev, time: o.timeCreated, overwrittenByGeneration: o.generation };
  return [replaced, finalize];
}

function deleted(
  c: CatalogView,
  bucket: string,
  name: string,
  generation: number,
  keep: boolean,
  time: string,
): ObjectEvent[] {
  const v = c.buckets.get(bucket)?.objects.get(name);
  if (!v) return [];
  if (v.live?.generation === generation)
    return keep
      ? [{ type: 'OBJECT_ARCHIVE', object: { ...v.live, timeDeleted: time }, time }]
      : [{ type: 'OBJECT_DELETE', object: v.live, time }];
  const old = v.old.find((x) => x.generation === generation);
  return old ? [{ type: 'OBJECT_DELETE', object: old, time }] : [];
}
