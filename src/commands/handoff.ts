// /handoff <platform> (Hermes's): moves this CLI conversation to a messaging platform's home channel.
// The session is marked `pending` in the session store; a running gateway with that platform claims
// it, binds the home channel to this very session (full transcript, same id) and has the agent
// confirm in the chat (src/gateway/handoff.ts). This command waits for the outcome (60 s,
// HERMES_HANDOFF_TIMEOUT): done → the REPL closes with the way back (`/resume <title>`); failed or
// nobody answering → the reason, and the conversation simply goes on here.
import type { CommandDef } from './registry.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function handoffCommand(): CommandDef {
  return {
    name: 'handoff',
    args: '<platform>',
    description: "hand this session to a messaging platform's home channel (a running gateway picks it up)",
    category: 'session',
    surfaces: ['cli'],
    async run(ctx, args) {
      const platform = args.trim().toLowerCase();
      const s = ctx.session;
      const o = { ...s.info, config: s.settings.config };
      if (!platform) return { output: 'Usage: /handoff <platform> — e.g. /handoff telegram (the platform needs a home channel: /sethome there).' };
      if (s.busy) return { output: '/handoff waits for the running turn: try again when it has finished, or /stop first.' };
      const gateway = ctx.hooks.gatewayPorts;
      if (!gateway) return { output: '/handoff is not available here: it runs in `hermes chat`.' };
      const ho = await import('../state/handoff.ts');
      const problem = await gateway.handoffProblem(platform, o.config, o.env);
      if (problem) return { output: problem };
      const store = o.store;
      if (!store) return { output: '/handoff needs the session store (state.db or PostgreSQL); this session is not saved.' };
      if (!s.history.length) return { output: 'Nothing to hand off yet: say something first.' };
      await s.flushStore();
      if (!(await ho.requestHandoff(store, s.id, platform))) return { output: 'This session is not in the session store yet; try again after a turn.' };
      const timeoutMs = (Number(o.env.HERMES_HANDOFF_TIMEOUT) || 60) * 1000;
      const deadline = performance.now() + timeoutMs;
      s.emit({ type: 'notice', message: `Handing off to ${platform}… (a running gateway picks it up)` });
      for (;;) {
        const st = await ho.handoffState(store, s.id);
        if (st.state === 'completed') {
          const title = (await store.getSession(s.id))?.title;
          return { output: `✓ Handed off to ${platform}: the conversation goes on in its home channel. Back here: /resume ${title ?? s.id} (or hermes -r ${s.id}).`, action: 'quit' };
        }
        if (st.state === 'failed') return { output: `✗ Handoff to ${platform} failed: ${st.error ?? 'unknown reason'}. The conversation goes on here.` };
        if (performance.now() > deadline) {
          await ho.finishHandoff(store, s.id, `no gateway picked it up within ${timeoutMs / 1000} s`, 'pending');
          const now = await ho.handoffState(store, s.id);
          if (now.state === 'completed') continue;
          if (now.state === 'running') {
            await sleep(500);
            continue; // a gateway claimed it just now: wait for its answer
          }
          return { output: `✗ No gateway picked up the handoff within ${timeoutMs / 1000} s: is \`hermes gateway\` running with ${platform}? The conversation goes on here.` };
        }
        await sleep(250);
      }
    },
  };
}
