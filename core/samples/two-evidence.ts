/**
 * Two kinds of evidence before an identity, personal or money field is filled without asking
 * (docs/creator-inference.md#two-kinds-of-evidence, issue #94): the name and the values' shape
 * must agree. An amount is a number that is not a time. Pure.
 */
import { nameWords } from './names.ts';
import type { InferredField } from './sample.ts';

/** Epoch seconds and milliseconds from 2001-09-09 to 2099-12-31, as infer.ts reads them. */
const SECONDS = [1e9, 4102444800] as const;
const MILLIS = [1e12, 4102444800000] as const;
/** Words of a name that says when: under one, epoch seconds are a time too. */
const WHEN_WORDS = /^(time|date|at|ts|stamp|timestamp|epoch|changed|created|updated|modified|when)$/;

const within = (v: unknown, [low, high]: readonly [number, number]) =>
  typeof v === 'number' && Number.isInteger(v) && v >= low && v <= high;

/**
 * Why a number named like an amount is a time, or undefined: every value is an instant in epoch
 * milliseconds (no sale is worth a trillion), or in epoch seconds under a name that says when
 * (FastSpring's `changedValue: 1751328000000` is when the subscription changed).
 */
export function timeShapedAmount(f: InferredField): string | undefined {
  if (f.type !== 'integer' || f.examples.length === 0) return undefined;
  const when = nameWords(f.name.slice(f.name.lastIndexOf('.') + 1)).some((w) => WHEN_WORDS.test(w));
  if (f.examples.every((v) => within(v, MILLIS)))
    return `its values (${f.examples[0]}) are instants in epoch milliseconds, not an amount`;
  if (when && f.examples.every((v) => within(v, SECONDS)))
    return `its name says when and its values (${f.examples[0]}) are epoch seconds, not an amount`;
  return undefined;
}
