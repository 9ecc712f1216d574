// test-timeout: 30
// The web app reads the dashboard API's response types from the server (src/dashboard/api-types.ts)
// instead of keeping copies: every import of server code from web/src is `import type` (esbuild
// drops it, so no server code is bundled), and no page declares its own shape of a response.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = join(ROOT, 'web', 'src');
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : []));

describe('the web app and the API types', () => {
  const sources = files(WEB).map((f) => ({ f: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it('imports server modules only as types, and only the API types', () => {
    const serverImports: string[] = [];
    for (const { f, text } of sources) {
      for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gm)) {
        const spec = m[3];
        if (!spec.startsWith('.')) continue;
        const target = relative(ROOT, join(ROOT, dirname(f), spec));
        if (target.startsWith('web/')) continue;
        serverImports.push(`${f} -> ${target}`);
        assert.ok(m[2], `${f} imports ${spec} as a value: only \`import type\` may reach outside web/ (server code must not be bundled)`);
        assert.equal(target, 'src/dashboard/api-types.ts', `${f}: the web app's types come from src/dashboard/api-types.ts`);
      }
    }
    assert.ok(serverImports.length >= 10, `the pages read the server's types (${serverImports.length} imports)`);
  });

  it('keeps no copy of a response shape', () => {
    const apiTypes = readFileSync(join(ROOT, 'src', 'dashboard', 'api-types.ts'), 'utf8');
    const names = [...apiTypes.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]);
    assert.ok(names.includes('StatusResponse') && names.includes('ChatEvent'), names.join(', '));
    // The old hand-written copies and any new declaration named like a server type.
    const copies = ['Skill', 'Job', 'Tokens', 'Report', 'Tool', 'Info', 'Field', 'Provider', 'Key', 'GatewayInfo', 'ListItem', 'Item', 'Hit', 'Msg', 'Page', 'Status', ...names];
    for (const { f, text } of sources)
      for (const m of text.matchAll(/^(?:export )?(?:interface (\w+)|type (\w+) =)/gm)) {
        const name = m[1] ?? m[2];
        const alias = new RegExp(`^type ${name} = \\w+\\['`, 'm').test(text); // a part of a server type, e.g. Job = CronListResponse['jobs'][number]
        assert.ok(!copies.includes(name) || alias, `${f} declares its own ${name}: import it from src/dashboard/api-types.ts`);
      }
  });
});
