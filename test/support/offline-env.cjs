// Loaded by mocha before any test file (.mocharc.json "require"). The test processes never
// reach Google: without this, google-auth-library probes the GCE metadata server, prints
// MetadataLookupWarning and waits for the probe. Set once here, so child processes the tests
// start inherit it too; a value set from outside wins.
'use strict';
process.env.METADATA_SERVER_DETECTION ??= 'none';
