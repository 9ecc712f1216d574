// Where the MCP servers used by the tests live.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const PKG = join(HERE, '..', '..', 'node_modules', '@modelcontextprotocol');
export const EVERYTHING = join(PKG, 'server-everything', 'dist', 'index.js');
export const FILESYSTEM = join(PKG, 'server-filesystem', 'dist', 'index.js');
/** test/mcp/fixtures/test-server.ts: ok, crash, sleep, fail, env, secret_tool (MODE=silent never answers). */
export const TEST_SERVER = join(HERE, 'fixtures', 'test-server.ts');
