/**
 * The environment's claim store as a function (or a command) sees it: the store plan().claims
 * names (`claims.store` in the settings, #97), on the environment's project. Firestore's claims
 * database (adapters/firestore-claims.ts), or the Bigtable instance's table
 * (adapters/bigtable-claims.ts). Neither store knows the other: the choice is made here only.
 *
 * Production and local differ only in the endpoint: FIRESTORE_EMULATOR_HOST or
 * BIGTABLE_EMULATOR_HOST (core/runtime-config.ts) when set, Google's APIs otherwise.
 *
 * `close()` ends the store's connection: the Bigtable store holds one HTTP/2 session (unref'd, so
 * it never keeps a process alive, and closed after 4 idle minutes); Firestore's calls hold none
 * of their own. A function never calls it: its instance keeps the store for its whole life, and
 * the process ends at the end of its drain (adapters/drain.ts), which ends the session with it.
 * A command that takes claims and then returns (cli/commands/replay.ts) closes it.
 */
import type { ClaimStore } from '../core/claims/claim-store.ts';
import type { ClaimsPlan } from '../core/claims/claims-plan.ts';
import { type BigtableClaimOptions, createBigtableClaimStore } from './bigtable-claims.ts';
import { createFirestoreClaimStore, type FirestoreClaimOptions } from './firestore-claims.ts';

/** A claim store and the end of its connection. */
export type EnvironmentClaimStore = ClaimStore & { close(): Promise<void> };

export interface EnvironmentClaimsConfig {
  readonly project: string;
  readonly plan: { readonly claims: Pick<ClaimsPlan, 'store' | 'database' | 'bigtable'> };
  /** FIRESTORE_EMULATOR_HOST (`host:port`): the Firestore emulator, locally. */
  readonly firestoreEmulatorHost?: string;
  /** BIGTABLE_EMULATOR_HOST (`host:port`): the Bigtable emulator, locally. */
  readonly bigtableEmulatorHost?: string;
}

/** How each store is made (tests give their own, to see which one is chosen and with what). */
export interface ClaimStoreMakers {
  readonly firestore: (opts: FirestoreClaimOptions) => ClaimStore;
  readonly bigtable: (opts: BigtableClaimOptions) => EnvironmentClaimStore;
}

const MAKERS: ClaimStoreMakers = {
  firestore: createFirestoreClaimStore,
  bigtable: createBigtableClaimStore,
};

/** The store plan().claims names, on the environment's project (the emulator's, where one is set). */
export function environmentClaims(
  config: EnvironmentClaimsConfig,
  make: ClaimStoreMakers = MAKERS,
): EnvironmentClaimStore {
  const claims = config.plan.claims;
  if (claims.store === 'bigtable') {
    const bt = claims.bigtable;
    if (!bt) throw new Error('plan().claims chooses bigtable but names no Bigtable instance');
    return make.bigtable({
      project: config.project,
      instance: bt.instance,
      table: bt.table,
      ...(config.bigtableEmulatorHost ? { emulatorHost: config.bigtableEmulatorHost } : {}),
    });
  }
  const store = make.firestore({
    project: config.project,
    database: claims.database,
    ...(config.firestoreEmulatorHost ? { emulatorHost: config.firestoreEmulatorHost } : {}),
  });
  return { ...store, close: async () => {} };
}
