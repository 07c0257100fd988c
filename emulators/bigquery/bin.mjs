#!/usr/bin/env node
// `eventbus-bigquery-emulator`: a packed copy runs its bundle (Node strips no types under
// node_modules); this repository runs the TypeScript source.
import { existsSync } from 'node:fs';

const bundle = new URL('./dist/main.js', import.meta.url);
await import(existsSync(bundle) ? bundle.href : new URL('./main.ts', import.meta.url).href);
