/**
 * The access file the emulators enforce IAM from (`--iam <file>`; iam-enforce.ts tells the whole
 * story): JSON written by whoever provisions (locally `local/access-file.ts`), holding the
 * policies on resources' full names (as `pulumi up` binds them), the secret local tokens are
 * signed with, and BigQuery's policy tags. The shape only; iam-checks.ts reads it.
 */
import type { PublishedKey } from './iam-keys.ts';
import type { IamPolicy } from './iam-policy.ts';

/** What the emulators read from the access file. */
export interface AccessFile {
  /** Hex; signs and verifies local tokens. */
  readonly tokenSecret: string;
  readonly policies: readonly IamPolicy[];
  /** BigQuery column-level security: the policy tags that enforce it and their data policies. */
  readonly policyTags?: readonly PolicyTagEntry[];
  /**
   * The public halves of the service accounts' keys (iam-keys.ts): what self-signed JWTs, signed
   * URLs and POST policies are verified with. A key not listed verifies nothing.
   */
  readonly serviceAccountKeys?: readonly PublishedKey[];
}

/**
 * A policy tag whose taxonomy enforces access control (BigQuery's column-level security), as the
 * BigQuery emulator reads it: the tag's name as table schemas carry it (`policyTags.names`), the
 * resource its Fine-Grained Readers are bound on, and its data policies (masking rules), each with
 * the resource its Masked Readers are bound on.
 */
export interface PolicyTagEntry {
  /** `projects/<p>/locations/<l>/taxonomies/<t>/policyTags/<id>`. */
  readonly name: string;
  /** Where `datacatalog.categories.fineGrainedGet` is checked; default `name`. */
  readonly resource?: string;
  readonly dataPolicies: readonly {
    /** `projects/<p>/locations/<l>/dataPolicies/<id>`. */
    readonly name: string;
    /** Where `bigquery.dataPolicies.maskedGet` is checked; default `name`. */
    readonly resource?: string;
    /** BigQuery's predefined masking rule: SHA256, ALWAYS_NULL, DEFAULT_MASKING_VALUE, … */
    readonly predefinedExpression: string;
  }[];
}
