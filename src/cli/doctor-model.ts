// `hermes doctor --model [--apply]`: what the configured model can do. For a local endpoint, what
// the server serves (window, capabilities: src/llm/local/), then the tool-calling self-test
// (model-selftest.ts). The verdict is kept in HERMES_HOME/local_models.json for `hermes status` and
// the dashboard; the settings it suggests are printed as `hermes config set` commands and written to
// config.yaml only with --apply.
import { loadConfig, setConfigKeys } from '../state/config.ts';
import { loadEnvFile } from '../state/env.ts';
import { writeLocalModel } from '../state/local-models.ts';
import { hermesHome, paths } from '../state/paths.ts';
import { existsSync } from 'node:fs';
import { CliError } from './errors.ts';
import { colorEnabled, makeStyle } from './repl/style.ts';

export async function runModelDoctor(o: { apply?: boolean; timeout?: string }): Promise<void> {
  const home = hermesHome();
  if (existsSync(paths.env(home))) loadEnvFile(paths.env(home), process.env);
  const { config } = loadConfig(home, process.env);
  const t = Number(o.timeout ?? 60);
  if (!Number.isFinite(t) || t <= 0) throw new CliError(`--timeout expects seconds, got "${o.timeout}".`, 2);
  const { resolveRuntime, isLocalUrl } = await import('../llm/index.ts');
  const { resolveInputFrom } = await import('../session/session-client.ts');
  let rt;
  try {
    rt = resolveRuntime(resolveInputFrom(config, process.env));
  } catch (e) {
    throw new CliError(`No model to test: ${(e as Error).message.split('\n')[0]} Run \`hermes setup\` first.`);
  }
  const s = makeStyle(colorEnabled(process.env, !!process.stdout.isTTY));
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`Model: ${rt.model} at ${rt.baseUrl}`);
  const m = (config.model ?? {}) as { local?: unknown; lean?: unknown; tool_call_parser?: string };
  const { shouldProbe } = await import('../llm/local/index.ts');
  if (rt.apiMode === 'chat_completions' && shouldProbe(rt.baseUrl, m.local)) {
    const { prepareLocalModel } = await import('../session/local-model.ts');
    const info = await prepareLocalModel({ home, config, env: process.env, rt, load: true });
    const sv = info.served;
    if (sv) {
      const caps = Object.entries(sv.capabilities).filter(([, v]) => v).map(([k]) => k);
      out(`Server: ${sv.kind}; window ${info.window.toLocaleString('en-US')} tokens${sv.maxWindow ? ` (model maximum ${sv.maxWindow.toLocaleString('en-US')})` : ''}; ${caps.length ? caps.join(', ') : 'no capabilities reported'}${info.lean ? '; lean mode' : ''}`);
    } else out(`Server: did not answer like Ollama, llama.cpp, vLLM, LM Studio or an OpenAI-compatible /models`);
    for (const n of info.notes) out(`${s.yellow('!')} ${n}`);
  } else if (!isLocalUrl(rt.baseUrl)) out(s.dim('(a remote provider: the self-test still runs, but its tool calls are the provider\'s own)'));

  out('Tool-calling self-test (10 short requests):');
  const { runSelfTest } = await import('./model-selftest.ts');
  const icon = { native: s.green('✓'), text: s.green('✓'), pass: s.green('✓'), fail: s.red('✗') };
  const report = await runSelfTest(rt, {
    timeoutMs: t * 1000,
    current: { tool_call_parser: m.tool_call_parser, lean: m.lean },
    onCase: (r, i) => {
      const how = r.outcome === 'native' ? 'native call' : r.outcome === 'text' ? `written as text (${r.format})` : r.outcome === 'pass' ? 'no call, right answer' : r.why;
      out(`  ${icon[r.outcome]} ${String(i + 1).padStart(2)}. ${r.name.padEnd(24)} ${how}`);
    },
  });
  const rec = report.record;
  writeLocalModel(home, rt.baseUrl, rt.model, { selftest: rec });
  const verdictLine = {
    native: `native: ${rt.model} returns tool calls in the API's field (${rec.native + rec.text + (rec.total - rec.native - rec.text - rec.failed)}/${rec.total} passed)`,
    text: `text: ${rt.model} writes tool calls as text (${rec.parser}); Hermes reads them (${rec.total - rec.failed}/${rec.total} passed)`,
    failing: `failing: ${rt.model} did not make usable tool calls (${rec.failed}/${rec.total} failed); use a model trained for tool use, or check the server's chat template (llama.cpp: --jinja; vLLM: --enable-auto-tool-choice --tool-call-parser …)`,
  }[rec.verdict];
  out(`Verdict: ${verdictLine}`);
  if (!report.settings.length) {
    out('Settings: nothing to change.');
  } else if (o.apply) {
    setConfigKeys(home, report.settings.map(([k, v]) => [k, v === 'true' ? true : v]));
    for (const [k, v] of report.settings) out(`Set ${k} = ${v} in ${paths.config(home)}`);
  } else {
    out('Suggested settings (run these, or `hermes doctor --model --apply`):');
    for (const [k, v] of report.settings) out(`  hermes config set ${k} ${v}`);
  }
  if (rec.verdict === 'failing') process.exitCode = 1;
}
