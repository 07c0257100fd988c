/**
 * The instant a time column's value stands for, read by the column's pattern (epoch seconds or
 * milliseconds, ISO 8601, or a written pattern such as `DD/MM/YYYY HH:mm`), as milliseconds since
 * the epoch in UTC; undefined where the value does not read. Pure.
 */
import { instant, readPattern } from '../formats/patterns.ts';
import type { InferredField } from './sample.ts';

export function instantOf(value: unknown, f: InferredField): number | undefined {
  if (f.pattern === 'epoch_seconds') return Number(value) * 1000;
  if (f.pattern === 'epoch_millis') return Number(value);
  if (typeof value !== 'string') return undefined;
  if (!f.pattern || f.pattern === 'ISO 8601' || f.pattern === 'RFC 3339') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  const parts = readPattern(value.trim(), f.pattern);
  return parts ? instant(parts) : undefined;
}
