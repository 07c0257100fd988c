/**
 * How a catalogue destination takes its credentials (docs/catalog-destinations.md): its own
 * module, without the manifest, so the studio's page and the CLI can ask it without loading the
 * 1.7 MB catalogue.
 */

/** `api_key`, `basic`, `custom`, `none`: from settings and secrets; `oauth2`, `oauth-managed`: an OAuth token. */
export type CatalogAuth = 'api_key' | 'basic' | 'oauth2' | 'oauth-managed' | 'none' | 'custom';

/** Whether a destination authenticates with an OAuth token (supported only where one can be a secret). */
export const isOAuth = (auth: unknown): boolean => auth === 'oauth2' || auth === 'oauth-managed';
