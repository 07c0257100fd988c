/**
 * The vocabulary the platforms' built-in mappings are written in: a table of target field →
 * rule, and the small rule builders they share.
 */
import type { FieldRule, Transform } from '../../schemas/mapping.ts';

/** Target field (dotted path in the platform's payload) → where its value comes from. */
export type Fields = Record<string, FieldRule>;

/** A platform's built-in mapping: the envelope every event gets, plus each catalogue event's own fields. */
export interface PlatformMapping {
  readonly envelope: Fields;
  readonly events: Record<string, { event: string; fields: Fields }>;
}

/** A number read from `from`. */
export const num = (from: string | string[]): FieldRule => ({ from, transform: ['number'] });

/** PII as the ad platforms want it: normalised, SHA-256, sent as a list. */
export const hashedList = (from: string | string[], ...normalise: Transform[]): FieldRule => ({
  from,
  transform: [...normalise, 'sha256', 'list'],
});
