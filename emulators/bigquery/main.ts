#!/usr/bin/env node
/**
 * `npm run emulator:bigquery -- --port 9050 --data-dir .data/bigquery`
 * Prints one line when ready; SIGINT/SIGTERM checkpoint the DuckDB file and exit 0.
 */
import { Command } from 'commander';
import { startBigQueryEmulator } from './server.ts';

const program = new Command()
  .name('bigquery-emulator')
  .description('Local BigQuery REST emulator over DuckDB')
  .option('--port <port>', 'port to listen on (0 picks a free one)', '9050')
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'directory holding bigquery.duckdb', '.data/bigquery')
  .parse(process.argv);

const opts = program.opts<{ port: string; host: string; dataDir: string }>();
const port = Number(opts.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port: ${opts.port}`);
  process.exit(2);
}

let emulator: Awaited<ReturnType<typeof startBigQueryEmulator>>;
try {
  emulator = await startBigQueryEmulator({ host: opts.host, port, dataDir: opts.dataDir });
} catch (err) {
  // Typically: another process holds the DuckDB file (DuckDB allows one), or the port is taken.
  console.error(`bigquery emulator failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  emulator.close().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// The ready line comes last: whoever reads it may signal at once, and must find the handlers.
console.log(`bigquery emulator listening on http://${opts.host}:${emulator.port}`);
