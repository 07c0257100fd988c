/**
 * Secret roles of a `segment_action` destination that are not its own settings keys: the OAuth
 * access token, supplied as a secret and sent as it is (docs/catalog-destinations.md, "Auth").
 */

/** The secret role an OAuth destination's access token is named under. */
export const ACCESS_TOKEN_ROLE = 'access_token';
