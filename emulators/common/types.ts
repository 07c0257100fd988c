/**
 * The types a client of the emulators' IAM needs, in one declared export
 * (`@eventbus/emulator-common/types`): the access file a provisioner writes (its policies and
 * BigQuery's policy tags) and what a check gives. Types only: importing it loads nothing.
 */
export type { Caller, CheckRequest, Denial } from './iam-checks.ts';
export type { IamBinding, IamPolicy } from './iam-policy.ts';
export type { AccessFile, PolicyTagEntry } from './iam-policy-file.ts';
