// Loaded by mocha first (.mocharc.json): Google's clients must not probe the GCE metadata server.
process.env.METADATA_SERVER_DETECTION ??= 'none';
