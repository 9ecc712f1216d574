// `hermes mcp serve` set-up: HERMES_HOME, the optional Hermes tools, stdout kept for the protocol.
import type { AgentTool } from '../agent/types.ts';
import { loadContext } from './context.ts';
import { Session } from '../session/session.ts';
import { builtinRegistry } from '../tools/builtin.ts';
import { Slots } from '../state/slots.ts';
import { SERVE_TOOLSETS, serveMcp } from '../mcp/serve.ts';
import { standalonePorts } from '../gateway/messaging.ts';

/** Anything that would print to stdout goes to stderr: stdout is the protocol. */
export function protectStdout(): void {
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  console.warn = console.error;
}

export async function runServe(opts: { tools?: boolean; toolsOnly?: boolean; verbose?: boolean }): Promise<void> {
  protectStdout();
  const ctx = loadContext();
  const log = (l: string) => process.stderr.write(`hermes mcp serve: ${l}\n`);
  let tools: AgentTool[] = [];
  let session: Session | null = null;
  const registered = builtinRegistry().toolsets();
  const toolsets = SERVE_TOOLSETS.filter((t) => registered.has(t));
  if (opts.tools || opts.toolsOnly) {
    try {
      // A session gives the tools their services (auxiliary vision model, web backends, redaction).
      session = new Session({
        home: ctx.home,
        config: ctx.loaded.config,
        env: ctx.env,
        cwd: process.cwd(),
        platform: 'mcp',
        source: 'mcp',
        interactive: false,
        explicit: { toolsets },
        dotenvNames: ctx.dotenvNames,
        ports: standalonePorts,
      });
      tools = session.tools;
    } catch (e) {
      // No model configured: the tools that need none (web search/extract) still work.
      log(`no model for vision (${(e as Error).message.split('\n')[0]}); serving the tools that need none`);
      const services = {
        home: ctx.home,
        config: ctx.loaded.config,
        env: ctx.env,
        cwd: process.cwd(),
        platform: 'mcp',
        sessionId: 'mcp-serve',
        taskId: 'mcp-serve',
        slots: new Slots(),
        yolo: false,
      };
      tools = builtinRegistry().build(toolsets, services, []);
    }
  }
  if (opts.toolsOnly) {
    try {
      await serveMcp({ home: ctx.home, env: ctx.env, tools, toolsOnly: true, log: opts.verbose ? log : () => {} });
    } finally {
      await session?.close('mcp_serve');
    }
    return;
  }
  try {
    // messages_send goes straight to the platforms' APIs (the gateway's send-only router).
    const { standaloneRouter } = await import('../gateway/delivery.ts');
    const router = standaloneRouter(ctx.env, ctx.loaded.config as never, opts.verbose ? log : undefined);
    const send = async (target: string, message: string) => router.send(target, message, { source: 'mcp' });
    try {
      await serveMcp({ home: ctx.home, env: ctx.env, config: ctx.loaded.config, tools, send, log: opts.verbose ? log : () => {} });
    } finally {
      await router.close();
    }
  } finally {
    await session?.close('mcp_serve');
  }
}
