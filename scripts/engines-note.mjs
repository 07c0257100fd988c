// Runs after `npm install` / `npm ci` (the root package's postinstall). Plain JavaScript, so any
// Node runs it. On a machine whose own Node is older than 24, npm prints EBADENGINE warnings
// for this package (engines: node >= 24) and for a few dependencies (node >= 22); npm has no
// setting that silences them alone. They are harmless here: every npm script and npx runs the
// Node 24 that npm just installed as the devDependency `node`. Say so right below them.
const NEEDED = 24;
// npm's user agent names the Node that runs npm: "npm/11.19.1 node/v20.20.2 linux x64 …".
const agent = process.env.npm_config_user_agent ?? '';
const version = /\bnode\/v(\d+)\.\S*/.exec(agent);
if (version && Number(version[1]) < NEEDED) {
  process.stdout.write(
    [
      '',
      `eventbus: the EBADENGINE warnings above are expected. This machine's node is ${version[0].slice(5)};`,
      `the project runs on the Node ${NEEDED} installed as the devDependency "node", which every`,
      'npm script and npx uses (npm start, npm test, npm run cli -- …, npx eventbus). Only a bare',
      '`node file.ts` would use the older one.',
      '',
    ].join('\n'),
  );
}
