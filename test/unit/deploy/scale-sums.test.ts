/**
 * The tables `npm run scale` prints add up (#97): in every table with a `total` column, each row's
 * money cells (all but the total and the per-million figure) sum to its total, to the cent, and a
 * month table leaves no line of its bill out (`monthCells` refuses one whose group has no column).
 */
import assert from 'node:assert/strict';
import { monthlyBill, trafficShape } from '../../../core/deploy/bill.ts';
import { plan } from '../../../core/plan.ts';
import { monthCells } from '../../../scripts/scale-bill.ts';
import { minimalSettings, scaleTables } from '../../../scripts/scale-table.ts';

/** The markdown tables of a text: each its header cells and its rows' cells. */
function tables(text: string): { header: string[]; rows: string[][] }[] {
  const found: { header: string[]; rows: string[][] }[] = [];
  const cells = (line: string) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim());
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.startsWith('| ') || !lines[i + 1]?.startsWith('| ---')) continue;
    const rows: string[][] = [];
    let j = i + 2;
    for (; lines[j]?.startsWith('| '); j++) rows.push(cells(lines[j] as string));
    found.push({ header: cells(line), rows });
    i = j;
  }
  return found;
}

/** Cents of a money cell (`$1,102.25`, `-$3.83`, `**$25.19**`), or undefined when it is no amount. */
function cents(cell: string): number | undefined {
  const m = /^(?:\*\*)?(-?)\$([\d,]+(?:\.\d\d)?)(?:\*\*)?$/.exec(cell);
  if (!m) return undefined;
  return (m[1] ? -1 : 1) * Math.round(Number((m[2] as string).replaceAll(',', '')) * 100);
}

/** Columns that are not parts of the total. */
const NOT_PARTS = new Set(['total', 'per million events']);

describe('npm run scale: every table with a total adds up', () => {
  const text = scaleTables();
  const summed = tables(text).filter((t) => t.header.includes('total'));

  it('finds the month tables and the per-million tables', () => {
    // The pipeline per million, the month at each rate, the monthly bills, the origin path's
    // month, forward-catalog's per million deliveries and month.
    assert.ok(summed.length >= 6, `${summed.length} tables with a total`);
    assert.ok(
      summed.some((t) => t.header.includes('claims') && t.header.includes('Cloud Trace')),
      'the monthly bills show the claims and Cloud Trace',
    );
  });

  it("sums each row's parts to its total, to the cent", () => {
    let rows = 0;
    for (const t of summed) {
      const total = t.header.indexOf('total');
      for (const row of t.rows) {
        const parts = row
          .map((cell, i) => (NOT_PARTS.has(t.header[i] as string) ? undefined : cents(cell)))
          .filter((c): c is number => c !== undefined);
        assert.ok(parts.length >= 2, `${t.header[0]}: ${row.join(' | ')}`);
        assert.equal(
          parts.reduce((a, b) => a + b, 0),
          cents(row[total] as string),
          `${t.header[0]}: ${row.join(' | ')}`,
        );
        rows++;
      }
    }
    assert.ok(rows >= 20, `${rows} rows`);
  });

  it('prints the floor per billing and the line that stops #97’s goal', () => {
    const floor =
      /The floor per billing, every built option: request-based \$(\d+\.\d\d), instance-based \$(\d+\.\d\d)/.exec(
        text,
      );
    assert.ok(floor, 'the floor line');
    // Instance billing has no request fee: its floor is the lower at the example's 1,000 events/s.
    assert.ok(Number(floor[2]) < Number(floor[1]), floor[0]);
    assert.match(
      text,
      /#97's goal, busy ≤ \$0\.50 per million at the recommended billing \(instance-based at 1,000 events\/s\)\. With every built option: not met: \$\d+\.\d\d, \$\d+\.\d\d over; the line that stops it is claims/,
    );
  });

  it('refuses a month table that leaves a line of the bill out', () => {
    const settings = minimalSettings();
    const p = plan(settings);
    const busy = monthlyBill(p, 'busy', trafficShape(settings, p.destinations.length));
    assert.throws(
      () => monthCells(busy, [{ title: 'Pub/Sub', groups: ['pubsub'] }]),
      /leaves out lines of its total: .*Send-once claims \(Firestore\)/,
    );
    assert.deepEqual(monthCells(busy, [{ title: 'all', groups: 'rest' }]), [
      `$${busy.total.toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    ]);
  });
});
