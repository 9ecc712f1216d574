// A local npm registry speaking the parts of the registry API `npm install` uses: the packument
// (GET /<name>, full or abbreviated: dist-tags, versions with dist.tarball, shasum and integrity)
// and the tarballs. Packages are `npm pack` tarballs; publishing a new version moves `latest`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';

export interface FakeNpmRegistry {
  url: string;
  /** Serves this tarball as `name@version` and makes it `latest`. */
  publish(name: string, version: string, tarball: string): void;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeNpmRegistry(): Promise<FakeNpmRegistry> {
  const packages = new Map<string, { latest: string; versions: Map<string, Buffer> }>();
  const requests: string[] = [];
  let base = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    requests.push(path);
    const tar = /^\/(.+)\/-\/[^/]+-(\d+\.\d+\.\d+)\.tgz$/.exec(path);
    if (tar) {
      const body = packages.get(tar[1])?.versions.get(tar[2]);
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
      return void res.end(body);
    }
    const pkg = packages.get(path.slice(1));
    if (!pkg) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: 'Not found' }));
    }
    const name = path.slice(1);
    const versions: Record<string, unknown> = {};
    for (const [v, body] of pkg.versions) {
      versions[v] = {
        name,
        version: v,
        dist: {
          tarball: `${base}/${name}/-/${name.split('/').pop()}-${v}.tgz`,
          shasum: createHash('sha1').update(body).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(body).digest('base64')}`,
        },
      };
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name, 'dist-tags': { latest: pkg.latest }, versions }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: base,
    requests,
    publish(name, version, tarball) {
      const p = packages.get(name) ?? { latest: version, versions: new Map() };
      p.versions.set(version, readFileSync(tarball));
      p.latest = version;
      packages.set(name, p);
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}
