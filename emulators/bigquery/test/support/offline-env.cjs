// Loaded by mocha first (.mocharc.json): the tests never reach Google, so google-auth-library must
// not probe the GCE metadata server (a warning, then a wait). Child processes inherit it.
process.env.METADATA_SERVER_DETECTION ??= 'none';
