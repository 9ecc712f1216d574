// `hermes acp` entry: stdout is the protocol (ndjson JSON-RPC), everything human goes to stderr.
import { Readable, Writable } from 'node:stream';
import { loadContext } from './context.ts';
import { CliError } from './errors.ts';
import { rawMcpServers } from '../mcp/session.ts';
import { resolveInputFrom } from '../session/session.ts';

export interface AcpCliOptions {
  check?: boolean;
  verbose?: boolean;
}

export async function runAcp(opts: AcpCliOptions): Promise<void> {
  // Nothing may print to stdout but the protocol.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  console.warn = console.error;
  const ctx = loadContext();
  const log = (line: string) => {
    if (opts.verbose || process.env.HERMES_ACP_DEBUG) process.stderr.write(`hermes acp: ${line}\n`);
  };
  for (const p of ctx.loaded.problems) process.stderr.write(`hermes acp: config.yaml: \`${p.key}\` ${p.message}\n`);
  if (opts.check) {
    const { resolveRuntime } = await import('../llm/index.ts');
    try {
      const rt = resolveRuntime(resolveInputFrom(ctx.loaded.config, ctx.env));
      process.stderr.write(`hermes acp: ready — ${rt.model} via ${rt.provider} (${rt.apiMode}).\n`);
    } catch (e) {
      throw new CliError(`not ready: ${(e as Error).message}`);
    }
    return;
  }
  const [acp, { HermesAcpServer }, { openAcpStore }] = await Promise.all([
    import('@agentclientprotocol/sdk/unstable'),
    import('../acp/server.ts'),
    import('../acp/store.ts'),
  ]);
  const store = await openAcpStore(ctx.home, ctx.loaded.config, ctx.env, (l) => process.stderr.write(`hermes acp: ${l}\n`));
  const server = new HermesAcpServer({
    home: ctx.home,
    env: ctx.env,
    config: ctx.loaded.config,
    rawMcp: rawMcpServers(ctx.loaded),
    dotenvNames: ctx.dotenvNames,
    store,
    log,
  });
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  log('listening on stdio');
  await server.serve(stream);
  log('connection closed');
}
