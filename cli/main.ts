#!/usr/bin/env node
/**
 * `eventbus`: the project's one executable (the package's `bin`). Subcommands live in
 * cli/commands/ and are listed in cli/commands/index.ts. Errors go to stderr with a non-zero
 * exit; data goes to stdout.
 */
import { enableCompileCache } from 'node:module';
import { Command, CommanderError } from 'commander';
import * as commands from './commands/index.ts';
import { CliError, type Io, processIo } from './output.ts';

/** What every command module exports. */
export interface CommandModule {
  register(program: Command): void;
}

/** Builds the program with every command registered (tests call this without exiting). */
export function createProgram(io: Io = processIo): Command {
  // Output and exit behaviour are set before registering: subcommands inherit them when created.
  const program = new Command('eventbus')
    .description(
      'Event collection on Google Cloud: settings, the local environment, tokens, SQL, replays, runtime resources.',
    )
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const modules: readonly CommandModule[] = Object.values(commands);
  for (const m of modules) m.register(program);
  return program;
}

/** Runs the CLI on argv (without node and script) and returns the exit code instead of exiting. */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      io.err(`error: ${err.message}\n`);
      return err.exitCode;
    }
    io.err(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

/** Commands that run until stopped and own their shutdown: never exited from here. */
const LONG_RUNNING = new Set(['start']);

/**
 * Output closed by the reader (`eventbus sql … | head`): stop writing, quietly. Without a
 * listener the EPIPE 'error' event would crash the CLI with a stack trace.
 */
function ignoreClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

/** Resolves once everything written to the stream so far has been handed to the OS. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
}

if (import.meta.main) {
  // Later runs reuse V8's compiled code of the modules commands load (a cache in the OS temp
  // dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off). The services `start` runs are children of
  // this process and load the same modules: the variable hands them the same cache, which
  // roughly halves each one's start-up CPU.
  const cache = enableCompileCache();
  if (cache.directory !== undefined) process.env['NODE_COMPILE_CACHE'] ??= cache.directory;
  ignoreClosedPipe(process.stdout);
  ignoreClosedPipe(process.stderr);
  const argv = process.argv.slice(2);
  const code = await run(argv);
  process.exitCode = code;
  // A one-shot command is done once its action resolves, but Google's clients can keep the
  // event loop busy for seconds afterwards (keep-alive sockets, gRPC channels, auth timers).
  // Leave as soon as the output is flushed. `start` returns only after it stopped everything.
  const command = argv.find((a) => !a.startsWith('-'));
  if (command === undefined || !LONG_RUNNING.has(command)) {
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit(code);
  }
}
