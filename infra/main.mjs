// The entry `pulumi up` runs (Pulumi.yaml `main`). Pulumi starts its program with whatever
// `node` is first on the PATH; the program is TypeScript that only Node's own type stripping
// runs, so an older Node failed deep inside with ERR_UNKNOWN_FILE_EXTENSION. This file is plain
// JavaScript any Node parses: it names the Node it needs, then hands over to infra/index.ts,
// whose exports become the stack outputs (a default export is what Pulumi reads then).
const NEEDED = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < NEEDED) {
  process.stderr.write(
    `eventbus infra needs Node ${NEEDED} (this is Node ${process.versions.node}): run pulumi with the project's pinned Node first on the PATH, e.g. PATH="$PWD/node_modules/.bin:$PATH" pulumi up\n`,
  );
  process.exit(1);
}
export default await import('./index.ts');
