/**
 * What consent lets us keep on a device (core/consent/storage-rules.ts, docs/browser.md "Storage
 * waits for consent"), without a browser: which state each mix of signals makes, in the order
 * the rules are written (cookieless, malformed, refused or withdrawn, unknown, then `ads`), and
 * each state's verdict for every item, written out here rather than read from the module.
 */
import assert from 'node:assert/strict';
import {
  STORAGE_RULES,
  type StorageSignals,
  storageState,
  storageVerdicts,
} from '../../../core/consent/storage-rules.ts';

const quiet: StorageSignals = {
  storage: 'granted',
  ads: 'granted',
  optOut: false,
  malformed: false,
  pending: false,
  cookieless: false,
  had: false,
};
const state = (over: Partial<StorageSignals>) => storageState({ ...quiet, ...over });

describe('consent: the storage state the signals make', () => {
  it('storage and ads granted store everything', () => {
    assert.equal(state({}), 'granted');
  });

  it('a cookieless page wins over every other signal', () => {
    assert.equal(state({ cookieless: true, malformed: true, storage: 'denied', had: true }), 'cookieless');
  });

  it('a malformed TC string wins over a grant and a refusal alike', () => {
    assert.equal(state({ malformed: true }), 'malformed');
    assert.equal(state({ malformed: true, storage: 'denied', had: true }), 'malformed');
  });

  it('storage refused is a refusal, or a withdrawal when something of ours is there', () => {
    assert.equal(state({ storage: 'denied' }), 'refused');
    assert.equal(state({ storage: 'denied', had: true }), 'withdrawn');
    assert.equal(state({ storage: 'denied', pending: true }), 'refused');
  });

  it('storage unstated or a platform still silent is unknown, whatever ads says', () => {
    assert.equal(state({ storage: undefined }), 'unknown');
    assert.equal(state({ pending: true }), 'unknown');
    assert.equal(state({ pending: true, ads: 'denied', optOut: true }), 'unknown');
  });

  it('with storage granted, ads decides: granted, opted out, refused or unstated', () => {
    assert.equal(state({ optOut: true }), 'granted');
    assert.equal(state({ ads: 'denied', optOut: true }), 'opt_out');
    assert.equal(state({ ads: undefined, optOut: true }), 'opt_out');
    assert.equal(state({ ads: 'denied' }), 'ads_refused');
    assert.equal(state({ ads: undefined }), 'ads_unstated');
  });
});

describe("consent: each state's verdict for every item", () => {
  const ITEMS = ['id', 'fbp', 'fbc', 'ga', 'campaign', 'consent'] as const;
  /** One letter per item in ITEMS' order: s store, r remove, l leave. */
  const WANT: Readonly<Record<keyof typeof STORAGE_RULES, string>> = {
    granted: 'ssssss',
    ads_refused: 'srrsss',
    opt_out: 'srrsss',
    ads_unstated: 'sllsss',
    refused: 'rrrrrr',
    withdrawn: 'rrrrrr',
    malformed: 'rrrrrr',
    unknown: 'llllll',
    cookieless: 'llllll',
  };
  const letters = (verdicts: Readonly<Record<(typeof ITEMS)[number], string>>) =>
    ITEMS.map((item) => (verdicts[item] as string)[0]).join('');

  it('is the table, state by state, with no item missing or extra', () => {
    assert.deepEqual(Object.keys(STORAGE_RULES).sort(), Object.keys(WANT).sort());
    for (const [name, verdicts] of Object.entries(STORAGE_RULES)) {
      assert.deepEqual(Object.keys(verdicts).sort(), [...ITEMS].sort(), name);
      assert.equal(letters(verdicts), WANT[name as keyof typeof WANT], name);
    }
  });

  it('is what storageVerdicts answers for the signals, and cannot be changed', () => {
    assert.equal(letters(storageVerdicts({ ...quiet, ads: 'denied' })), 'srrsss');
    assert.equal(letters(storageVerdicts({ ...quiet, storage: 'denied', had: true })), 'rrrrrr');
    assert.ok(Object.isFrozen(STORAGE_RULES) && Object.values(STORAGE_RULES).every(Object.isFrozen));
  });
});
