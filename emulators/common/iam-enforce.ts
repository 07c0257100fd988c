/**
 * Who is calling an emulator, and whether IAM would let them: what the three emulators share
 * when they run with `--iam <file>`.
 *
 * - **The access file** (JSON, written by whoever provisions: locally `local/access-file.ts`)
 *   holds the policies on resources' full names (as `pulumi up` binds them) and the secret the
 *   local tokens are signed with. It is re-read when it changes, so a new grant applies without
 *   a restart.
 * - **Who calls**: a `Bearer` token minted for a member (`mintToken`, `eventbus local token --as`)
 *   or self-signed with a service account's published key (iam-keys.ts),
 *   else the member bound to the port the connection came in on (`--identity <member>=<port>`:
 *   Google's clients send no credentials to an emulator's plaintext endpoint — the Pub/Sub client
 *   switches its gRPC channel to insecure credentials, the BigQuery and Storage clients skip
 *   authentication for a custom endpoint — so a workload's endpoint carries its identity), else
 *   the project's owner, as Google's own emulators treat every caller: Google's client test
 *   suites and ad-hoc clients keep working. A token that does not verify is 401 UNAUTHENTICATED.
 * - **Whether allowed**: iam-policy.ts over the file's policies; the owner may do everything.
 *
 * Without `--iam` nothing is checked: every caller is the owner.
 */
//
// Split by concern (issue #77); this file stays the entry point every emulator imports:
// the access file (iam-policy-file.ts), tokens (iam-tokens.ts), service-account keys
// (iam-keys.ts), member ports (iam-ports.ts), and the checks (iam-checks.ts).
export * from './iam-checks.ts';
export * from './iam-keys.ts';
export * from './iam-policy-file.ts';
export * from './iam-ports.ts';
export * from './iam-tokens.ts';
