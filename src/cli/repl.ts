// The interactive REPL (line-based). Streams answers, shows a line per tool, asks inline for
// approvals, Ctrl+C interrupts a running turn (twice quits), Ctrl+D quits.
import { createInterface } from 'node:readline';
import type { AgentEvent, ApprovalChoice } from '../agent/types.ts';
import { describeError } from '../llm/index.ts';
import { activityLine } from '../runtime/activity.ts';
import { messageText } from '../agent/repair.ts';
import { startCliMcp, readySummary } from '../mcp/session.ts';
import { createCliSession, explicitFrom, findResumeTarget, openStateDb, preloadedSkills } from './chat.ts';
import type { ChatOptions } from './commands/chat.ts';
import { loadContext } from './context.ts';
import { createCommandRegistry } from '../commands/builtin.ts';
import { runCommand } from '../commands/registry.ts';

export async function runRepl(opts: ChatOptions): Promise<void> {
  const ctx = loadContext({ strict: true });
  const db = openStateDb(ctx.home);
  const restored = findResumeTarget(db, opts);
  let skillText = preloadedSkills(ctx, opts);
  const out = process.stdout;
  // Slow MCP servers keep connecting in the background; their tools join when they are ready.
  const mcp = await startCliMcp(ctx, explicitFrom(opts).toolsets, 5000);
  const session = createCliSession(ctx, opts, true, { store: db, restored, mcp, onMcpEvent: (line) => out.write(`\n${line}\n`) });
  const ext = ctx.loaded.config.skills?.external_dirs;
  const commands = createCommandRegistry({ home: ctx.home, externalDirs: Array.isArray(ext) ? ext : [] });
  const rt = session.runtime;
  out.write(`⚕ Hermes · ${rt.model} via ${rt.provider} · ${session.tools.length} tools · /quit or Ctrl+D to leave\n`);
  if (mcp && readySummary(mcp)) out.write(`MCP: ${readySummary(mcp)}\n`);
  for (const w of mcp?.warnings() ?? []) out.write(`⚠ ${w}\n`);
  for (const w of session.warnings) out.write(`⚠ ${w}\n`);
  if (restored) {
    out.write(`↻ Resuming ${restored.title ? `“${restored.title}” ` : ''}(${restored.sessionId}), ${restored.history.length} messages.\n`);
    const recap = restored.history.filter((m) => (m.role === 'user' || m.role === 'assistant') && messageText(m.content).trim()).slice(-4);
    for (const m of recap) {
      const t = messageText(m.content).trim().replace(/\s+/g, ' ');
      out.write(`  ${m.role === 'user' ? 'you' : 'hermes'}: ${t.length > 160 ? `${t.slice(0, 157)}…` : t}\n`);
    }
  }

  const rl = createInterface({ input: process.stdin, output: out, terminal: true, prompt: '❯ ' });
  const pending: { answer: ((line: string) => void) | null } = { answer: null };
  let lastCtrlC = 0;
  const toolArgs = new Map<string, Record<string, unknown>>();
  let midLine = false;

  session.on((e: AgentEvent) => {
    switch (e.type) {
      case 'text_delta':
        out.write(e.text);
        midLine = !e.text.endsWith('\n');
        break;
      case 'tool_start':
        toolArgs.set(e.callId, e.args);
        break;
      case 'tool_end':
        if (midLine) out.write('\n');
        midLine = false;
        out.write(activityLine(e.name, toolArgs.get(e.callId) ?? {}, e.durationMs, { failed: e.isError }) + '\n');
        break;
      case 'request': {
        const r = e.request;
        if (midLine) out.write('\n');
        midLine = false;
        if (r.kind === 'approval') out.write(`⚠️  Potentially dangerous command (${r.description}):\n    ${r.command}\n[o]nce | [s]ession | [a]lways | [d]eny  Choice [o/s/a/D]: `);
        else if (r.kind === 'clarify') out.write(`❓ ${r.question}${r.choices?.length ? `\n${r.choices.map((c, i) => `   ${i + 1}. ${c}`).join('\n')}` : ''}\n> `);
        else out.write(`${r.prompt}: `);
        pending.answer = (line) => {
          const a = line.trim().toLowerCase();
          if (r.kind === 'approval') {
            const map: Record<string, ApprovalChoice> = { o: 'once', s: 'session', a: 'always' };
            session.answer(e.id, map[a[0] ?? ''] ?? 'deny');
          } else if (r.kind === 'clarify') {
            const n = Number(line.trim());
            session.answer(e.id, r.choices && Number.isInteger(n) && n >= 1 && n <= r.choices.length ? r.choices[n - 1] : line.trim());
          } else session.answer(e.id, line || null);
        };
        break;
      }
      case 'retry':
        out.write(`\n↻ ${e.error.message} — retrying in ${(e.delayMs / 1000).toFixed(1)}s\n`);
        break;
      case 'fallback':
        out.write(`\n⇄ switching to fallback ${e.to}: ${e.reason}\n`);
        break;
      case 'warning':
      case 'notice':
        if (midLine) out.write('\n');
        midLine = false;
        out.write(`${e.type === 'warning' ? '⚠ ' : ''}${e.message}\n`);
        break;
      default:
        break;
    }
  });

  rl.on('SIGINT', () => {
    if (session.busy) {
      session.interrupt();
      out.write('\n⏹ interrupted\n');
      return;
    }
    const now = Date.now();
    if (now - lastCtrlC < 2000) rl.close();
    else {
      lastCtrlC = now;
      out.write('\n(press Ctrl+C again or Ctrl+D to quit)\n');
      rl.prompt();
    }
  });

  rl.prompt();
  for await (const line of rl) {
    if (pending.answer) {
      const f = pending.answer;
      pending.answer = null;
      f(line);
      continue;
    }
    const text = line.trim();
    if (!text) {
      rl.prompt();
      continue;
    }
    if (text.startsWith('/')) {
      const r = await runCommand(commands, text, { session, surface: 'cli', hooks: {} });
      if (r?.output) out.write(r.output + '\n');
      if (r?.action === 'quit') break;
      if (r?.action === 'clear_screen') out.write('\x1b[2J\x1b[H');
      if (!r?.send) {
        rl.prompt();
        continue;
      }
      void session.prompt(r.send).then(() => rl.prompt());
      continue;
    }
    if (session.busy) {
      session.queue(text);
      out.write('(queued)\n');
      continue;
    }
    const first = skillText ? `${skillText}\n\nUser instruction: ${text}` : text;
    skillText = undefined;
    void session.prompt(first).then((r) => {
      if (midLine) out.write('\n');
      midLine = false;
      if (r.failed && r.error) out.write(`✗ ${'provider' in r.error ? describeError(r.error, session.runtime) : r.error.message}\n`);
      rl.prompt();
    });
  }
  // Leaving the loop does not release the terminal by itself: close readline and stdin.
  rl.close();
  process.stdin.pause();
  if (process.stdin.isTTY) process.stdin.setRawMode?.(false);
  process.stdin.unref?.();
  // Give a running background review (memory, skills) a moment to finish.
  await Promise.race([session.idle(), new Promise((r) => setTimeout(r, 15_000).unref())]);
  await session.close('cli_close');
  db.close();
}
