/**
 * An event time outside the accepted window says what was read and which side it fell on (issue
 * #63, "window errors say what they mean"): an epoch number is told the unit it was read in, an
 * RFC 3339 text is never told about epochs.
 */
import assert from 'node:assert/strict';
import { normalizeEvent, normalizeOptions } from '../../../core/event.ts';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const options = normalizeOptions({ name: 'test', project: 'test-project', region: 'europe-west1' });
const violation = (event_time: unknown): string => {
  const r = normalizeEvent({ event_name: 'login', event_time }, { options, now: NOW, newId: () => 'id' });
  assert.ok(!r.ok, 'refused');
  const v = r.violations.find((x) => x.field === 'event_time');
  assert.ok(v, JSON.stringify(r.violations));
  return v.description;
};

describe('contract: event time outside the window', () => {
  it('an RFC 3339 time: the time read and the side, no word of epochs', () => {
    const d = violation('2019-05-01T10:00:00Z');
    assert.match(
      d,
      /^is too far in the past: 2019-05-01T10:00:00\.000Z; the accepted window is \d+ days back to \d+ hours ahead$/,
    );
    assert.doesNotMatch(d, /epoch/);
    assert.match(violation('2026-03-01T00:00:00Z'), /^is too far in the future: 2026-03-01/);
  });

  it('an epoch number in seconds: read as milliseconds, and told so', () => {
    const d = violation(1_767_225_600);
    assert.match(
      d,
      /^is too far in the past: 1970-01-21T\S+, read as epoch milliseconds \(send seconds × 1000\)/,
    );
  });
});
