import assert from 'node:assert/strict';
import { cellText, csvField, renderCsv, renderRows, renderTable } from '../../../cli/output.ts';

describe('cli output', () => {
  const rows = [
    { name: 'events', kind: 'events', tags: ['a', 'b'] },
    { name: 'deliveries-webhook', kind: 'forward', tags: [] },
  ];

  it('aligns table columns under a header rule', () => {
    const lines = renderTable(rows).trimEnd().split('\n');
    assert.equal(lines[0], 'name                kind     tags');
    assert.equal(lines[1], '------------------  -------  ----');
    assert.equal(lines[2], 'events              events   a, b');
    assert.equal(lines[3], 'deliveries-webhook  forward');
  });

  it('prints (none) for an empty table', () => {
    assert.equal(renderTable([]), '(none)\n');
  });

  it('quotes CSV fields holding commas, quotes and newlines', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(renderCsv(rows), 'name,kind,tags\nevents,events,"a, b"\ndeliveries-webhook,forward,\n');
  });

  it('keeps JSON values typed and honours a column list', () => {
    assert.deepEqual(JSON.parse(renderRows(rows, 'json')), rows);
    assert.equal(renderRows(rows, 'csv', [{ key: 'kind', header: 'Kind' }]), 'Kind\nevents\nforward\n');
    assert.equal(cellText({ a: 1 }), '{"a":1}');
    assert.equal(cellText(null), '');
  });
});
