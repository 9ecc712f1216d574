// ByteRover: a local-first knowledge tree kept by the `brv` CLI (npm: byterover-cli), in
// $HERMES_HOME/byterover/. Recall runs `brv query`, saving runs `brv curate`. BRV_BINARY picks the
// binary (default `brv` on PATH).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '../../llm/types.ts';
import { cleanForCapture, str, toolErr, toolOk, toolSchema } from '../tools.ts';
import type { ExternalMemoryProvider, MemoryProviderFactory, ProviderEnv } from '../types.ts';

function run(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    c.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const t = setTimeout(() => c.kill('SIGKILL'), timeoutMs);
    c.on('error', (e) => {
      clearTimeout(t);
      reject(new Error((e as NodeJS.ErrnoException).code === 'ENOENT' ? `ByteRover CLI "${bin}" not found: install it with npm install -g byterover-cli` : e.message));
    });
    c.on('close', (code) => {
      clearTimeout(t);
      if (code === 0) resolve(out.trim());
      else reject(new Error(`brv ${args[0]} failed (exit ${code}): ${(err || out).trim().slice(0, 300)}`));
    });
  });
}

function create(e: ProviderEnv): ExternalMemoryProvider {
  const dir = join(e.home, 'byterover');
  const bin = e.env.BRV_BINARY?.trim() || 'brv';
  const brv = (args: string[], ms = 30_000) => {
    mkdirSync(dir, { recursive: true });
    return run(bin, args, dir, e.env, ms);
  };
  return {
    name: 'byterover',
    isAvailable: () => true,
    systemPromptBlock: () => '# ByteRover\nActive. brv_query searches the knowledge tree, brv_curate stores facts, decisions and patterns, brv_status shows its state.',
    toolSchemas: () => [
      toolSchema('brv_query', 'Search the ByteRover knowledge tree.', { query: str('What to look for') }, ['query']),
      toolSchema('brv_curate', 'Store a fact, decision or pattern in the knowledge tree.', { content: str('What to store') }, ['content']),
      toolSchema('brv_status', 'The ByteRover CLI version and knowledge-tree statistics.'),
    ],
    async handleToolCall(name, a) {
      if (name === 'brv_query') return toolOk({ result: await brv(['query', String(a.query ?? '')]) });
      if (name === 'brv_curate') {
        if (!a.content) return toolErr('content is required');
        return toolOk({ curated: true, result: await brv(['curate', String(a.content)]) });
      }
      if (name === 'brv_status') return toolOk({ status: await brv(['status']) });
      return toolErr(`unknown tool ${name}`);
    },
    async prefetch(query) {
      const r = await brv(['query', query.slice(0, 500)], 10_000);
      return r ? `## ByteRover\n${r}` : undefined;
    },
    syncTurn(user, assistant) {
      const u = cleanForCapture(user);
      if (u.length < 20) return;
      return brv(['curate', `User: ${u}\nAssistant: ${cleanForCapture(assistant).slice(0, 2000)}`]).then(() => undefined);
    },
    async onPreCompress(messages: readonly Message[]) {
      const text = messages
        .filter((m) => (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string')
        .slice(-12)
        .map((m) => `${m.role}: ${cleanForCapture(m.content as string).slice(0, 1000)}`)
        .join('\n');
      if (text) await brv(['curate', `Insights from a conversation about to be compacted:\n${text}`], 60_000);
    },
    async healthCheck() {
      const v = await brv(['status'], 10_000);
      return `brv works (${v.split('\n')[0] || 'ok'}); knowledge tree in ${dir}`;
    },
    describe: () => ({ binary: bin, tree: dir }),
  };
}

const factory: MemoryProviderFactory = {
  name: 'byterover',
  description: 'ByteRover: local-first knowledge tree through the brv CLI',
  fields: [],
  create,
  saveConfig() {},
};
export default factory;
