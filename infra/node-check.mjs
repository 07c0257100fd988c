// Plain JavaScript any Node parses. Pulumi starts a program or a policy pack with whatever
// `node` is first on the PATH; ours are TypeScript that only Node's own type stripping runs, so
// an older Node failed deep inside with ERR_UNKNOWN_FILE_EXTENSION. This names the Node needed.
const NEEDED = 24;

/** Stops the process with one line when the running Node is older than the project's. */
export function requireNode(what, command) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= NEEDED) return;
  process.stderr.write(
    `eventbus ${what} needs Node ${NEEDED} (this is Node ${process.versions.node}): run pulumi with the project's pinned Node first on the PATH, e.g. PATH="$PWD/node_modules/.bin:$PATH" ${command}\n`,
  );
  process.exit(1);
}
