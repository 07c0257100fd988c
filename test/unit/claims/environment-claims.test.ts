/**
 * adapters/environment-claims.ts: a function's claims go to the store its settings choose
 * (`claims.store`, #97), read from the same runtime environment as on Google Cloud, the emulator
 * host of that store the only local difference. The stores are made by the test's own makers:
 * which one is made, and with what, is the choice; nothing is called.
 */
import assert from 'node:assert/strict';
import type { BigtableClaimOptions } from '../../../adapters/bigtable-claims.ts';
import {
  type ClaimStoreMakers,
  type EnvironmentClaimStore,
  environmentClaims,
} from '../../../adapters/environment-claims.ts';
import type { FirestoreClaimOptions } from '../../../adapters/firestore-claims.ts';
import { ENV, readFunctionConfig } from '../../../core/runtime-config.ts';

const BASE = { name: 'shop', project: 'shop-project', region: 'europe-west1' };

/** Makers that record what they were asked to make; each store a marker object. */
function recording() {
  const made: (
    | { kind: 'firestore'; opts: FirestoreClaimOptions }
    | { kind: 'bigtable'; opts: BigtableClaimOptions }
  )[] = [];
  const store = (kind: string): EnvironmentClaimStore => {
    const refuse = () => Promise.reject(new Error(`${kind}: no call expected`));
    return { create: refuse, replace: refuse, read: refuse, release: refuse, close: async () => {} };
  };
  const makers: ClaimStoreMakers = {
    firestore: (opts) => {
      made.push({ kind: 'firestore', opts });
      return store('firestore');
    },
    bigtable: (opts) => {
      made.push({ kind: 'bigtable', opts });
      return store('bigtable');
    },
  };
  return { made, makers };
}

const config = (settings: object, env: Record<string, string> = {}) =>
  readFunctionConfig({ [ENV.settings]: JSON.stringify(settings), ...env });

describe('environmentClaims: the store the settings choose', () => {
  it('Firestore by default: the claims database, the Firestore emulator when one is set', () => {
    const { made, makers } = recording();
    environmentClaims(config(BASE, { FIRESTORE_EMULATOR_HOST: '127.0.0.1:9001' }), makers);
    environmentClaims(config(BASE), makers);
    assert.deepEqual(made, [
      {
        kind: 'firestore',
        opts: { project: 'shop-project', database: 'shop-claims', emulatorHost: '127.0.0.1:9001' },
      },
      { kind: 'firestore', opts: { project: 'shop-project', database: 'shop-claims' } },
    ]);
  });

  it('claims.store: bigtable → the instance and table of the plan, the Bigtable emulator when one is set', () => {
    const { made, makers } = recording();
    const settings = { ...BASE, claims: { store: 'bigtable' } };
    const env = { FIRESTORE_EMULATOR_HOST: '127.0.0.1:9001', BIGTABLE_EMULATOR_HOST: '127.0.0.1:9002' };
    environmentClaims(config(settings, env), makers);
    environmentClaims(config(settings), makers);
    assert.deepEqual(made, [
      {
        kind: 'bigtable',
        opts: {
          project: 'shop-project',
          instance: 'shop-claims',
          table: 'claims',
          emulatorHost: '127.0.0.1:9002',
        },
      },
      { kind: 'bigtable', opts: { project: 'shop-project', instance: 'shop-claims', table: 'claims' } },
    ]);
  });

  it('the Bigtable emulator host reaches the function config only from BIGTABLE_EMULATOR_HOST', () => {
    assert.equal(config(BASE, { BIGTABLE_EMULATOR_HOST: 'h:1' }).bigtableEmulatorHost, 'h:1');
    assert.equal('bigtableEmulatorHost' in config(BASE), false);
  });

  it('refuses a plan that chooses Bigtable without naming its instance', () => {
    const { makers } = recording();
    assert.throws(
      () =>
        environmentClaims(
          { project: 'p', plan: { claims: { store: 'bigtable', database: 'd-claims' } } },
          makers,
        ),
      /names no Bigtable instance/,
    );
  });

  it('with the real makers: each store is made without a call, and closes', async () => {
    for (const store of ['firestore', 'bigtable'] as const) {
      const s = environmentClaims(
        config({ ...BASE, claims: { store } }, { BIGTABLE_EMULATOR_HOST: '127.0.0.1:1' }),
      );
      assert.equal(typeof s.create, 'function', store);
      await s.close();
    }
  });
});
