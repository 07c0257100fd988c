/**
 * Records built from untrusted names (a sample's columns, a form body's keys, a translator's
 * field paths): the one way a field is set on them. Shared by the creator's sample readers
 * (core/samples/) and the translators (core/translate/), below both.
 */

/**
 * Sets a field of a row built from untrusted names: a column named `__proto__` becomes an own
 * field instead of replacing the row's prototype.
 */
export function setField(row: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(row, name, { value, enumerable: true, writable: true });
  else row[name] = value;
}
