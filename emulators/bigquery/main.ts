#!/usr/bin/env node
/**
 * `npm run emulator:bigquery -- --port 9050 --data-dir .data/bigquery`, with `--iam <access-file>`
 * and `--identity <member>=<port>` to enforce IAM (README, "Access control").
 * Prints one line when ready; SIGINT/SIGTERM checkpoint the DuckDB file and exit 0.
 */
import { httpUrl, serveUntilSignalled } from '@eventbus/emulator-common/cli.ts';
import { type IdentityPort, iamOf, iamOptions } from '@eventbus/emulator-common/iam-enforce.ts';
import { Command } from 'commander';
import { startBigQueryEmulator } from './server.ts';
import { DEFAULT_STREAMING_BUFFER_MS } from './streaming-buffer.ts';

const program = iamOptions(new Command())
  .name('bigquery-emulator')
  .description('Local BigQuery REST emulator over DuckDB')
  .option('--port <port>', 'port to listen on (0 picks a free one)', '9050')
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--data-dir <dir>', 'directory holding bigquery.duckdb', '.data/bigquery')
  .option(
    '--job-latency-ms <ms>',
    'make every query job last at least this long, as BigQuery jobs do (exercises jobComplete: false and RUNNING jobs); default: BIGQUERY_EMULATOR_JOB_LATENCY_MS, else 0',
    process.env['BIGQUERY_EMULATOR_JOB_LATENCY_MS'] || '0',
  )
  .option(
    '--streaming-buffer-ms <ms>',
    'how long insertAll rows stay in the streaming buffer, where UPDATE, DELETE and MERGE may not touch them (0: no buffer)',
    String(DEFAULT_STREAMING_BUFFER_MS),
  )
  .parse(process.argv);

const opts = program.opts<{
  port: string;
  host: string;
  dataDir: string;
  jobLatencyMs: string;
  streamingBufferMs: string;
  iam?: string;
  identity?: IdentityPort[];
}>();
const jobLatencyMs = Number(opts.jobLatencyMs);
if (!Number.isInteger(jobLatencyMs) || jobLatencyMs < 0) {
  console.error(`invalid --job-latency-ms: ${opts.jobLatencyMs}`);
  process.exit(2);
}
const streamingBufferMs = Number(opts.streamingBufferMs);
if (!Number.isInteger(streamingBufferMs) || streamingBufferMs < 0) {
  console.error(`invalid --streaming-buffer-ms: ${opts.streamingBufferMs}`);
  process.exit(2);
}
const port = Number(opts.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port: ${opts.port}`);
  process.exit(2);
}

await serveUntilSignalled('bigquery emulator', () =>
  startBigQueryEmulator({
    host: opts.host,
    port,
    dataDir: opts.dataDir,
    jobLatencyMs,
    streamingBufferMs,
    ...iamOf(program, opts),
  }).then((emulator) => ({
    url: httpUrl(opts.host, emulator.port),
    close: () => emulator.close(),
  })),
);
