/**
 * The markers around a generated part of a page (`<!-- generated:<name> -->` … `<!-- /generated -->`),
 * shared by `npm run docs` (scripts/docs-generate.ts) and the tests that check a part is current
 * without loading every generator (test/unit/creator-corpus.test.ts, test/infra/variants.test.ts).
 */

/** The text with the block between a part's markers replaced; an error if the markers are missing. */
export function fill(text: string, name: string, body: string, file: string): string {
  const open = `<!-- generated:${name} -->`;
  const start = text.indexOf(open);
  const end = start < 0 ? -1 : text.indexOf('<!-- /generated -->', start);
  if (start < 0 || end < 0) throw new Error(`${file}: no ${open} … <!-- /generated --> block`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}
