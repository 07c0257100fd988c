/**
 * The local twin of the metadata server's token endpoint, for "the function's own account"
 * (adapters/google-oauth.ts): on Google Cloud a function with no credentials secret asks
 * `GET /computeMetadata/v1/instance/service-accounts/{account}/token?scopes=…` with the header
 * `Metadata-Flavor: Google`, and gets `{access_token, expires_in, token_type}` back with the same
 * header. Locally the functions find it at the receiver (`GCE_METADATA_HOST`, local/services.ts),
 * so a read as the function's own identity (GA4's runReport counts) reaches the stand-ins with a
 * token. A request without the header is refused with 403, as the metadata server does.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const TOKEN_PATH = /^\/computeMetadata\/v1\/instance\/service-accounts\/[^/]+\/token$/;
/** How long a token lives, in seconds (the metadata server hands out tokens of under an hour). */
const EXPIRES_IN = 3599;

/** Answers a metadata token request; false for any other path. */
export function handleMetadataToken(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (!TOKEN_PATH.test(path)) return false;
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain' }).end('Method not allowed.');
    return true;
  }
  if (req.headers['metadata-flavor'] !== 'Google') {
    res.writeHead(403, { 'content-type': 'text/plain' }).end('Missing Metadata-Flavor:Google header.');
    return true;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'metadata-flavor': 'Google' }).end(
    JSON.stringify({
      access_token: `local-${randomBytes(24).toString('base64url')}`,
      expires_in: EXPIRES_IN,
      token_type: 'Bearer',
    }),
  );
  return true;
}
