/**
 * Credentials Google's client libraries load unchanged, for a chosen member of a local
 * environment: an `external_account` credentials file (the kind workload identity federation
 * uses) whose `token_url` is an emulator's `POST /v1/token`, the path of Google's Security Token
 * Service (sts.googleapis.com). Pointed at by `GOOGLE_APPLICATION_CREDENTIALS`, the client's
 * google-auth-library reads the subject token from the file itself, exchanges it here for an
 * access token (RFC 8693 token exchange, as against Google's STS), sends `Authorization: Bearer`
 * with every call, and exchanges again before the token expires.
 *
 * - The subject token is a local token (iam-enforce.ts, `mintToken`) minted for the member with
 *   the access file's secret, or a service account's self-signed JWT; the exchange verifies it and
 *   answers a fresh token for the same member that lasts an hour, or less: never past the subject
 *   token's own `exp`. A call made with it is checked as that member's (iam-enforce.ts).
 * - With IAM off the emulators check no token: the exchange answers the subject token itself.
 * - A bad request is OAuth's 400 `{error, error_description}`: a grant that is not a token
 *   exchange (`unsupported_grant_type`), a subject token missing, unsigned, expired or of another
 *   environment (`invalid_grant`).
 *
 * The BigQuery and Cloud Storage clients send credentials to a custom endpoint only when built
 * with `useAuthWithCustomEndpoint: true`; docs/permissions.md tells the whole recipe.
 */
import type { Enforcement } from './iam-enforce.ts';
import { claimedExpiry } from './iam-tokens.ts';

export const STS_PATH = '/v1/token';
const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
/** The field of the credentials file that holds the subject token. */
const SUBJECT_FIELD = 'eventbus_subject_token';
/** How long an exchanged access token lasts (Google's STS tokens last an hour too). */
export const EXCHANGED_TTL_SECONDS = 3600;

/** The exchange's answer: the HTTP status and the JSON body. */
export function exchangeToken(
  enforcement: Enforcement | undefined,
  form: URLSearchParams,
  now = Date.now(),
): [number, Record<string, unknown>] {
  const refuse = (error: string, description: string): [number, Record<string, unknown>] => [
    400,
    { error, error_description: description },
  ];
  if (form.get('grant_type') !== GRANT)
    return refuse('unsupported_grant_type', `grant_type must be ${GRANT}`);
  const subject = form.get('subject_token') ?? '';
  if (subject === '') return refuse('invalid_request', 'subject_token is required');
  if (/\s/.test(subject)) return refuse('invalid_grant', 'The subject token is malformed.');
  let token = subject;
  let ttl = EXCHANGED_TTL_SECONDS;
  if (enforcement) {
    const caller = enforcement.callerOf(`Bearer ${subject}`, undefined);
    // Never outlives the subject token (a self-signed JWT lasts an hour at most).
    const exp = claimedExpiry(subject);
    if (exp !== undefined) ttl = Math.min(ttl, exp - Math.floor(now / 1000));
    const minted = caller && ttl > 0 && enforcement.mint(caller.principal, ttl);
    if (!minted)
      return refuse('invalid_grant', 'The subject token is not a valid token of this local environment.');
    token = minted;
  }
  return [
    200,
    {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: ttl,
    },
  ];
}

/**
 * The credentials file for `member`: `path` is where it will be written (it names itself as the
 * subject token's source), `tokenUrl` an emulator's exchange (`http://127.0.0.1:9050/v1/token`).
 */
export function credentialsFile(
  path: string,
  member: string,
  subjectToken: string,
  tokenUrl: string,
): Record<string, unknown> {
  return {
    type: 'external_account',
    audience: `//iam.googleapis.com/locally/eventbus/${member}`,
    subject_token_type: JWT_TYPE,
    token_url: tokenUrl,
    credential_source: {
      file: path,
      format: { type: 'json', subject_token_field_name: SUBJECT_FIELD },
    },
    [SUBJECT_FIELD]: subjectToken,
  };
}
