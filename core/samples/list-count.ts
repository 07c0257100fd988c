/**
 * A list's count is not the event's value (docs/creator-inference.md, "A list's count", issue
 * #94). A collection is often written as its entries and how many there are (`labels: { total: 2,
 * entries: [...] }`, `items: { total_count: 3, data: [...] }`): the `total` is named like an
 * amount, but it counts the list beside it, and an ad platform given it as the sale's value gets
 * a number of labels. A whole number under a bare total's name (`total`, `total_count`; not
 * `totalPrice`) is read as such a count, never as the value, when its own
 * object holds a list and no currency code, and either it equals that list's length in every row
 * that has both (two or more in one of them), or everything else in its object is a list (the object is the collection, not
 * the payload's top). An order's `total` beside its `items` is neither: its amount is not the
 * number of its items, and the order holds more than lists. Pure.
 */
import { nameWords } from './names.ts';
import { levelOf } from './person-record.ts';
import type { InferredField } from './sample.ts';

/** Whether a column holds lists: JSON arrays in every example it has. */
const isList = (f: InferredField) =>
  f.type === 'json' && f.examples.length > 0 && f.examples.every((e) => Array.isArray(e));

/**
 * Whether a column's leaf is a bare total (`total`, `total_count`, `totalCount`): a name with a
 * word of money in it (`totalPrice`, `total_amount`) says it is an amount, whatever it equals.
 */
function bareTotal(column: string): boolean {
  const words = nameWords(column.slice(column.lastIndexOf('.') + 1));
  return words[0] === 'total' && words.every((w) => w === 'total' || w === 'count');
}

/** Whether a value is a whole number, as a JSON sender writes it. */
const whole = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * Why `column` is the count of a list beside it and not the event's value (module comment), or
 * undefined when it may be an amount.
 */
export function listCount(
  fields: readonly InferredField[],
  rows: readonly Record<string, unknown>[],
  column: string,
): string | undefined {
  const f = fields.find((x) => x.name === column);
  if (f?.type !== 'integer' || !bareTotal(column)) return undefined;
  const level = levelOf(column);
  const inLevel = fields.filter((x) => x.name !== column && x.distinct > 0 && levelOf(x.name) === level);
  if (inLevel.some((x) => x.format === 'currency')) return undefined;
  const lists = inLevel.filter(isList);
  if (lists.length === 0) return undefined;
  // Read from the rows where there are some, else from the examples: one reading each.
  const readings: [unknown, unknown[]][] =
    rows.length > 0
      ? rows.map((r) => [r[column], lists.map((l) => r[l.name])])
      : [[f.examples[0], lists.map((l) => l.examples[0])]];
  const pairs = readings.filter(([n, ls]) => whole(n) && ls.some(Array.isArray));
  // A list of none or one matches a count by chance too often: some row must count two or more.
  const counts =
    pairs.some(([n]) => (n as number) >= 2) &&
    pairs.every(([n, ls]) => ls.some((l) => Array.isArray(l) && l.length === n));
  const where = level === '' ? 'the payload' : level;
  const named = lists.map((l) => l.name).join(', ');
  if (counts) return `it equals the length of the list ${named} beside it: the list's count, not an amount`;
  // Beyond the count itself, only lists (and what they hold) in its object: a collection.
  const nested = fields.filter((x) => x.name !== column && x.distinct > 0 && x.name.startsWith(`${level}.`));
  const onlyLists = nested.every((x) =>
    lists.some((l) => x.name === l.name || x.name.startsWith(`${l.name}.`)),
  );
  if (level !== '' && onlyLists)
    return `${where} holds only it and the list ${named}: a collection's count, not an amount`;
  return undefined;
}
