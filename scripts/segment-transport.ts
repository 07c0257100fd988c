/**
 * Which catalogue actions send over a client of their own instead of the request client actions-core
 * hands them (docs/security.md, "Actions with a client of their own"). The egress gate sees a
 * catalogue action's requests because actions-core's fetch is replaced by the gate's
 * (adapters/segment-actions/run.ts); an action whose code opens its own connections (Kafka's
 * protocol through kafkajs, SFTP through ssh2, the AWS SDK's HTTPS client, a raw socket) would go
 * around it, to whatever host its settings name. Found by reading the package's code: from an
 * action's own file, every file it requires inside the package, and each package or Node module
 * those require by name; an action whose graph reaches one of OWN_CLIENTS has that transport.
 * Run when the catalogue is generated (scripts/segment-catalog.ts); its result is data in
 * core/platforms/segment-action/catalog.json (`transport`), which the settings check and the
 * runtime read.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Modules that connect by themselves (a socket, HTTP without fetch, a protocol of their own). */
const OWN_CLIENTS =
  /^(?:node:)?(?:net|tls|http|https|http2|dgram)$|^kafkajs$|^ssh2(?:-sftp-client)?$|^basic-ftp$|^@aws-sdk\/|^aws-sdk$|^@google-cloud\/|^(?:pg|mysql2?|mongodb|ioredis|redis|amqplib|ws|nodemailer)$/;

const REQUIRE = /require\("([^"]+)"\)/g;

/** The file a relative require names: `x.js`, `x/index.js`, or the path as written. */
function fileOf(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const candidate of [base, `${base}.js`, join(base, 'index.js')])
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  return undefined;
}

/** The modules named (not relative) in the graph of `entry` inside `root`, in the order met. */
export function namedModules(entry: string, root: string): string[] {
  const seen = new Set<string>();
  const named: string[] = [];
  const walk = (file: string) => {
    if (seen.has(file) || !file.startsWith(root)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(REQUIRE)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) {
        const next = fileOf(file, spec);
        if (next) walk(next);
      } else if (!named.includes(spec)) named.push(spec);
    }
  };
  walk(entry);
  return named;
}

/**
 * The client of its own an action sends with (`kafkajs`, `@aws-sdk/client-s3`), or undefined when
 * it sends only through the request client. `dist` is the package's dist folder; an action without
 * a folder of its own is judged by its destination's whole folder.
 */
export function actionTransport(dist: string, slug: string, action: string): string | undefined {
  const folder = join(dist, 'destinations', slug);
  const own = join(folder, action, 'index.js');
  const entries = existsSync(own) ? [own] : [join(folder, 'index.js')];
  for (const entry of entries)
    for (const name of namedModules(entry, dist))
      if (OWN_CLIENTS.test(name)) return name.replace(/^node:/, '');
  return undefined;
}
