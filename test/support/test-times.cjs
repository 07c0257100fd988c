// With EVENTBUS_TEST_TIMES=<dir> set, each mocha process (a worker under --parallel) appends one
// JSON line per test file to <dir>/<pid>.jsonl (under --parallel, as npm test runs, root hooks run
// once per file; a serial run writes one line for the whole run, named after its first file):
// the file, its wall time from its first hook and the CPU it cost —
// the process's own and that of the child processes it started and waited for (environments,
// emulators, browsers: Linux's cutime/cstime in /proc/self/stat). `npm run test-times -- <dir>`
// sums them. Off (no hooks) when the variable is unset. Loaded through .mocharc.json "require".
'use strict';
const { appendFileSync, mkdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const dir = process.env.EVENTBUS_TEST_TIMES;

/** Own and waited-for children's CPU seconds (user + system) from /proc/self/stat. */
function cpu() {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime (clock ticks)
  } catch {}
  return { own: (own.user + own.system) / 1e6, children };
}

if (dir) {
  mkdirSync(dir, { recursive: true });
  let start;
  exports.mochaHooks = {
    beforeAll() {
      start = { at: Date.now(), ...cpu() };
    },
    afterAll() {
      const suites = this.test?.parent?.suites ?? [];
      const file = suites.find((s) => s.file)?.file;
      const end = cpu();
      appendFileSync(
        join(dir, `${process.pid}.jsonl`),
        `${JSON.stringify({
          file: file ? relative(process.cwd(), file) : '(unknown)',
          wallSeconds: (Date.now() - start.at) / 1000,
          ownCpuSeconds: +(end.own - start.own).toFixed(3),
          childCpuSeconds: +(end.children - start.children).toFixed(3),
        })}\n`,
      );
    },
  };
}
