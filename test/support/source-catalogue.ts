/**
 * The source catalogue (sources/*.yaml, adapters/source-catalogue.ts) as the tests read it: parsed
 * once per test process and handed to each caller as its own copy. A dozen test files and the
 * catalogue gateways read the whole catalogue, and parsing its YAML again each time cost about
 * half a CPU-second of test:fast; the files do not change while the tests run.
 */
import { readCatalogue } from '../../adapters/source-catalogue.ts';
import type { Source } from '../../core/translate/sources.ts';

let parsed: readonly Source[] | undefined;

/** Every source of the catalogue, by file name order: a copy the caller may change. */
export function sourceCatalogue(): Source[] {
  parsed ??= readCatalogue();
  return structuredClone(parsed) as Source[];
}
