// Loaded by mocha before any test file (.mocharc.json "require"). The test processes never
// reach Google: without this, google-auth-library probes the GCE metadata server, prints
// MetadataLookupWarning and waits for the probe. Set once here, so child processes the tests
// start inherit it too; a value set from outside wins.
'use strict';
process.env.METADATA_SERVER_DETECTION ??= 'none';

// Every test process, and every process a test starts (emulators, functions, `eventbus start`),
// reuses V8's compiled code of the modules it loads from one cache in the OS temp dir: most
// tests start the same services, and compiling them again is most of a start's CPU.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = require('node:module');
if (typeof enableCompileCache === 'function' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  const cache = enableCompileCache();
  if (cache.directory !== undefined) process.env.NODE_COMPILE_CACHE ??= cache.directory;
}
