#!/usr/bin/env node
// `eventbus-bigtable-emulator`. Node strips no types from files under node_modules, so a packed copy
// runs dist/main.js (built by prepack); in this repository the TypeScript source runs as it is.
import { existsSync } from 'node:fs';

const built = new URL('./dist/main.js', import.meta.url);
const entry = existsSync(built) ? built : new URL('./main.ts', import.meta.url);
await import(entry.href);
