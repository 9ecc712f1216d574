// `hermes setup` / `hermes model` with a local endpoint: what the server serves (window,
// capabilities: src/llm/local/), and the wizard's offer of the tool-calling self-test
// (`hermes doctor --model`), whose suggested settings are written only when the person says yes.
import type { ProviderRuntime } from '../llm/index.ts';
import type { HermesConfig } from '../state/defaults.ts';

type Clack = typeof import('@clack/prompts');

/**
 * One line about the served model for a local endpoint, or null (remote, or the server said nothing
 * about it: a generic server without a window). Caches the probe. `known`: Ollama, llama.cpp, vLLM
 * or LM Studio (the wizard offers them the self-test).
 */
export async function localServerLine(rt: ProviderRuntime, config: HermesConfig, env: NodeJS.ProcessEnv, home: string): Promise<{ line: string; known: boolean } | null> {
  const { shouldProbe } = await import('../llm/local/index.ts');
  if (rt.apiMode !== 'chat_completions' || !shouldProbe(rt.baseUrl, config.model?.local)) return null;
  const { prepareLocalModel } = await import('../session/local-model.ts');
  const { localModelLine, readLocalModel } = await import('../state/local-models.ts');
  // Setup does not load a model into memory: an Ollama model not loaded yet shows its maximum.
  const info = await prepareLocalModel({ home, config, env, rt, load: false });
  if (!info.served || (info.served.kind === 'generic' && !info.served.window)) return null;
  const rec = readLocalModel(home, rt.baseUrl, rt.model) ?? { ...info.served };
  return { line: `Server: ${localModelLine({ ...rec, ...info.served })}`, known: info.served.kind !== 'generic' };
}

/** The wizard: offers the self-test, shows the verdict, and asks before writing the settings it suggests. */
export async function wizardSelfTest(c: Clack, rt: ProviderRuntime, config: HermesConfig, home: string): Promise<void> {
  const go = await c.confirm({ message: 'Run the tool-calling self-test now? (10 short requests; `hermes doctor --model` later)', initialValue: false });
  if (c.isCancel(go) || !go) return;
  const { runSelfTest } = await import('./model-selftest.ts');
  const m = (config.model ?? {}) as { tool_call_parser?: string; lean?: unknown };
  const sp = c.spinner();
  sp.start('Testing tool calls');
  const report = await runSelfTest(rt, { timeoutMs: 60_000, current: { tool_call_parser: m.tool_call_parser, lean: m.lean }, onCase: (_r, i) => sp.message(`Testing tool calls (${i + 1}/10)`) });
  const rec = report.record;
  const { writeLocalModel } = await import('../state/local-models.ts');
  writeLocalModel(home, rt.baseUrl, rt.model, { selftest: rec });
  sp.stop(`Self-test: ${rec.verdict}${rec.verdict === 'text' && rec.parser ? ` (${rec.parser})` : ''}, ${rec.total - rec.failed}/${rec.total} passed`);
  for (const r of report.results) if (r.outcome === 'fail') c.log.warn(`${r.name}: ${r.why}`);
  if (!report.settings.length) return;
  const list = report.settings.map(([k, v]) => `${k}: ${v}`).join(', ');
  const apply = await c.confirm({ message: `Save the suggested settings (${list}) to config.yaml?`, initialValue: true });
  if (c.isCancel(apply) || !apply) {
    c.log.info(`Not saved. Later: ${report.settings.map(([k, v]) => `hermes config set ${k} ${v}`).join('; ')}`);
    return;
  }
  const { setConfigKeys } = await import('../state/config.ts');
  setConfigKeys(home, report.settings.map(([k, v]) => [k, v === 'true' ? true : v]));
  c.log.success(`Saved ${list}`);
}
