// Runs under whatever `node` is first on PATH; must stay parsable by Node 20.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(
    `ERROR: node ${process.version} is first on PATH, but Hermes needs Node >= 22. ` +
      'node_modules/.bin/node (Node 24, from the "node" devDependency) is missing. ' +
      'Was its install script skipped (--ignore-scripts, or allowScripts "node": false)? Run `npm ci`.',
  );
  process.exit(1);
}
// npm itself may run on an older Node (its user agent says which): then it warns EBADENGINE for every
// package that needs Node 22+. Those packages only ever run on the provisioned Node 24, so say so once.
const npmNode = /\bnode\/v(\d+)/.exec(process.env.npm_config_user_agent ?? '');
if (process.env.npm_lifecycle_event === 'postinstall' && npmNode && Number(npmNode[1]) < 22) {
  console.error(
    `Note: npm runs on Node v${npmNode[1]}, so it warned "EBADENGINE" for packages that need Node 22+. ` +
      `That is expected and harmless: Hermes runs them on the Node ${process.versions.node} installed into node_modules/.bin/node ` +
      '(bin/hermes.mjs switches to it).',
  );
}
