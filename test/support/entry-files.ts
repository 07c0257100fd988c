/**
 * The deployables' entry files: what Google Cloud runs (and the supervisor starts locally). Each
 * hands `process.env` over whole and installs the log redaction first (docs/security.md, "Logs");
 * a `service.ts` serves its function's `index.ts`, which does both.
 */
export const ENTRY_FILES: readonly string[] = [
  'gateway/main.ts',
  'studio/main.ts',
  'functions/store/index.ts',
  'functions/forward/index.ts',
  'functions/forward-catalog/index.ts',
  'functions/schedule/index.ts',
  'functions/store/service.ts',
  'functions/forward/service.ts',
];
