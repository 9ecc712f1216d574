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
