/**
 * How the creator page words its counts (studio/web/creator-wording.ts, issue #94): one sample row
 * and one type read as such ("All 1 sample rows fit the definitions of their 1 types" was the
 * page's text), and several in the plural.
 */
import assert from 'node:assert/strict';
import { counted, fitTarget, rowCheckPending, rowCheckVerdict } from '../../studio/web/creator-wording.ts';

describe('studio creator: counts in the singular or the plural', () => {
  it('words a count with its noun', () => {
    assert.equal(counted(1, 'row'), '1 row');
    assert.equal(counted(3, 'row'), '3 rows');
    assert.equal(counted(0, 'column'), '0 columns');
    assert.equal(counted(2, 'entry', 'entries'), '2 entries');
  });

  it('says what one row, or several, fit', () => {
    assert.equal(
      rowCheckVerdict(1, 0, fitTarget(undefined, 1)),
      'The sample row fits the definition of its one type.',
    );
    assert.equal(
      rowCheckVerdict(3, 0, fitTarget(undefined, 2)),
      'All 3 sample rows fit the definitions of their 2 types.',
    );
    assert.equal(
      rowCheckVerdict(1, 0, fitTarget('purchase', undefined)),
      'The sample row fits the purchase event.',
    );
    assert.equal(
      rowCheckVerdict(2, 0, fitTarget(undefined, undefined)),
      'All 2 sample rows fit the definition.',
    );
  });

  it('says how many would be refused, and marks the row or the rows', () => {
    assert.equal(
      rowCheckVerdict(1, 1, 'the definition'),
      'The sample row would be refused: see the marked row.',
    );
    assert.equal(
      rowCheckVerdict(2, 1, 'the definition'),
      '1 of 2 sample rows would be refused: see the marked row.',
    );
    assert.equal(
      rowCheckVerdict(5, 3, 'the definition'),
      '3 of 5 sample rows would be refused: see the marked rows.',
    );
    assert.equal(rowCheckPending(1), 'Checking the sample row…');
    assert.equal(rowCheckPending(4), 'Checking the 4 sample rows…');
  });
});
