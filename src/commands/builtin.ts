// Slash commands that work on the session runtime itself, for every surface.
import { byString } from '../state/fsutil.ts';
import pkg from '../../package.json' with { type: 'json' };
import { estimateMessagesTokens, estimateTextTokens, estimateToolsTokens } from '../agent/tokens.ts';
import { contextLengthFor } from '../llm/index.ts';
import { messageText } from '../agent/repair.ts';
import { usageSummary } from '../llm/token-summary.ts';
import { promptTokens, type Message } from '../llm/types.ts';
import { activePersonality, BUILTIN_PERSONALITIES, findPersonality, listPersonalities, NO_PERSONALITY } from '../session/personality.ts';
import { setConfigKey } from '../state/config.ts';
import type { SessionPrefs } from '../session/session.ts';
import { knownToolsets } from '../tools/toolsets.ts';
import { reloadMcpCommand } from './mcp.ts';
import { hermesHome } from '../state/paths.ts';
import { browserCommand } from './browser.ts';
import { voiceCommand } from './voice.ts';
import { codexRuntimeCommand } from './codex.ts';
import { confirmDestructive, skipWord } from './confirm.ts';
import { t as tr } from '../i18n/index.ts';
import { cronCommand } from './cron.ts';
import { displayCommands } from './display.ts';
import { fileCommands } from './files.ts';
import { infoCommands } from './info.ts';
import { workCommands } from './work.ts';
import { bundlesCommand, registerBundleCommands } from './bundles.ts';
import { curatorCommand } from './curator.ts';
import { surfaceExtraCommands } from './surface-extras.ts';
import { moaCommand } from './moa.ts';
import { insightsCommand } from './insights.ts';
import { kanbanCommand } from './kanban.ts';
import { sandboxCommand } from './sandbox.ts';
import { pluginsCommand } from './plugins.ts';
import { currentPluginHost, pluginHost } from '../plugins/state.ts';
import { modelCommand } from './model.ts';
import { ALL_SURFACES, CommandRegistry, type CommandCategory, type CommandDef } from './registry.ts';
import { registerSkillCommands, reloadSkillsCommand, stateCommands } from './state.ts';
import { pluginCommandDef } from './plugin-commands.ts';
import { chatCommands } from './chat.ts';
import { billingCommands } from './billing.ts';
import { suggestionsCommand } from './suggestions.ts';

const n = (x: number) => x.toLocaleString('en-US');
const usd = (x: number | null) => (x === null ? 'unknown (no price for this model)' : `$${x < 0.01 ? x.toFixed(4) : x.toFixed(2)}`);

/** Index of the last user message in a history, or -1. */
function lastUserIndex(history: Message[]): number {
  for (let i = history.length - 1; i >= 0; i--) if (history[i].role === 'user') return i;
  return -1;
}

const CATEGORY_TITLES: Record<CommandCategory, string> = { session: 'help_session', config: 'help_config', tools: 'help_tools', info: 'help_info' };

export function builtinCommands(registry: () => CommandRegistry): CommandDef[] {
  return [
    {
      name: 'help',
      aliases: ['?'],
      args: '[command | skills | text]',
      description: 'list commands; /help skills lists skill commands, /help <text> filters, /help <command> explains one',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx, args) {
        const defs = registry().list(ctx.surface);
        const isSkill = (d: CommandDef) => d.description.startsWith('skill: ');
        if (args.trim().toLowerCase() === 'skills') {
          const skills = defs.filter(isSkill);
          return { output: skills.length ? `Skill commands:\n${skills.map((d) => `  /${d.name}  —  ${d.description.slice(7)}`).join('\n')}` : 'No skills installed. See /skills search <words>.' };
        }
        if (args) {
          const want = args.replace(/^\//, '').toLowerCase();
          const r = registry().resolve(`/${want}`, ctx.surface);
          const d = 'error' in r ? null : r.def;
          if (!d || !(d.name === want || d.aliases?.includes(want))) {
            const hits = defs.filter((x) => x.name.includes(want) || x.description.toLowerCase().includes(want) || x.aliases?.some((a) => a.includes(want)));
            if (hits.length) return { output: hits.map((x) => `  /${x.name}${x.args ? ` ${x.args}` : ''}  —  ${x.description}`).join('\n') };
            if (!d) return { output: tr('commands.help_no_match', { query: args }) };
          }
          return { output: `/${d.name}${d.args ? ` ${d.args}` : ''} — ${d.description}${d.aliases?.length ? `\naliases: ${d.aliases.map((a) => `/${a}`).join(', ')}` : ''}` };
        }
        const lines: string[] = [];
        for (const cat of Object.keys(CATEGORY_TITLES) as CommandCategory[]) {
          const group = defs.filter((d) => d.category === cat && !isSkill(d));
          if (!group.length) continue;
          lines.push(`${tr(`commands.${CATEGORY_TITLES[cat]}`)}:`);
          for (const d of group) lines.push(`  /${d.name}${d.args ? ` ${d.args}` : ''}  —  ${d.description}`);
        }
        const skillCount = defs.filter(isSkill).length;
        if (skillCount) lines.push(tr(`commands.help_skill_count_${skillCount === 1 ? 'one' : 'other'}`, { count: skillCount }));
        return { output: lines.join('\n') };
      },
    },
    {
      name: 'new',
      aliases: ['reset'],
      args: '[name]',
      description: 'start a new session (the current one stays saved); a name becomes its title',
      category: 'session',
      surfaces: ALL_SURFACES,
      async run(ctx, args) {
        const { skip, rest } = skipWord(args);
        if (ctx.session.history.length && !(await confirmDestructive(ctx, tr('commands.new_confirm'), skip))) return { output: tr('commands.kept_session') };
        ctx.session.reset('new_session');
        if (rest) ctx.session.pendingTitle = rest;
        return { output: rest ? tr('commands.new_session_named', { id: ctx.session.id, title: rest }) : tr('commands.new_session', { id: ctx.session.id }), action: 'new_session' };
      },
    },
    {
      name: 'clear',
      description: 'clear the screen and start a new session',
      category: 'session',
      surfaces: ['cli'],
      async run(ctx, args) {
        const { skip } = skipWord(args);
        if (ctx.session.history.length && !(await confirmDestructive(ctx, tr('commands.clear_confirm'), skip))) return { output: tr('commands.kept_session') };
        ctx.session.reset('new_session');
        return { action: 'clear_screen', output: tr('commands.new_session', { id: ctx.session.id }) };
      },
    },
    {
      name: 'history',
      description: 'show the conversation so far',
      category: 'session',
      surfaces: ALL_SURFACES,
      run(ctx) {
        const lines: string[] = [];
        for (const m of ctx.session.history) {
          const text = messageText(m.content).trim();
          if (m.role === 'user') lines.push(`${tr('commands.history_you')}: ${text}`);
          else if (m.role === 'assistant') {
            if (text) lines.push(`hermes: ${text}`);
            for (const c of m.tool_calls ?? []) lines.push(`  ↳ ${c.function.name}(${c.function.arguments.slice(0, 80)})`);
          }
        }
        return { output: lines.length ? lines.join('\n') : tr('commands.history_empty') };
      },
    },
    {
      name: 'retry',
      description: 'send your last message again (drops the answer to it)',
      category: 'session',
      surfaces: ALL_SURFACES,
      run(ctx) {
        const h = ctx.session.history;
        const i = lastUserIndex(h);
        if (i < 0) return { output: tr('commands.nothing_to_retry') };
        const text = messageText(h[i].content);
        ctx.session.rewind(i);
        return { send: text };
      },
    },
    {
      name: 'undo',
      args: '[N]',
      description: 'back up N of your messages (default 1) and everything after; the last one comes back to edit',
      category: 'session',
      surfaces: ALL_SURFACES,
      async run(ctx, args) {
        const { skip, rest } = skipWord(args);
        const n = rest ? Number(rest) : 1;
        if (!Number.isInteger(n) || n < 1) return { output: tr('commands.undo_usage') };
        const h = ctx.session.history;
        let i = h.length;
        for (let k = 0; k < n; k++) {
          const j = lastUserIndex(h.slice(0, i));
          if (j < 0) break;
          i = j;
        }
        if (i >= h.length || h[i]?.role !== 'user') return { output: tr('commands.nothing_to_undo') };
        if (!(await confirmDestructive(ctx, n === 1 ? tr('commands.undo_confirm_one') : tr('commands.undo_confirm_other', { count: n }), skip))) return { output: tr('commands.nothing_undone') };
        const text = messageText(h[i].content);
        const removed = h.length - i;
        ctx.session.rewind(i);
        const shown = `${text.slice(0, 60)}${text.length > 60 ? '…' : ''}`;
        return { output: n === 1 ? tr('commands.undid_one', { removed, text: shown }) : tr('commands.undid_other', { count: n, removed, text: shown }), prefill: ctx.surface === 'cli' ? text : undefined };
      },
    },
    {
      name: 'stop',
      description: 'stop the running turn',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const was = ctx.session.busy;
        ctx.session.interrupt();
        return { output: tr(was ? 'commands.stopped' : 'commands.nothing_running'), action: 'stop' };
      },
    },
    {
      name: 'queue',
      aliases: ['q'],
      args: '<prompt>',
      description: 'run a prompt after the current turn',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx, args) {
        if (!args) return { output: tr('commands.queue_usage') };
        if (!ctx.session.busy) return { send: args };
        ctx.session.queue(args);
        return { output: tr('commands.queued', { count: ctx.session.queuedPrompts.length }) };
      },
    },
    {
      name: 'steer',
      args: '<text>',
      description: 'add guidance to the running turn (seen after the next tool call)',
      category: 'session',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx, args) {
        if (!args) return { output: tr('commands.steer_usage') };
        if (!ctx.session.busy) return { send: args };
        ctx.session.steer(args);
        return { output: tr('commands.steer_noted') };
      },
    },
    {
      name: 'status',
      description: 'session, model and tool status',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const s = ctx.session;
        const rt = s.runtime;
        const label = (k: string) => `${tr(`commands.status_${k}`)}:`.padEnd(9);
        const lines = [
          `${label('session')} ${s.id}${s.busy ? ` ${tr('commands.status_working')}` : ''}`,
          `${label('model')} ${rt.model}`,
          `${label('provider')} ${rt.provider} (${rt.apiMode}) ${rt.baseUrl}`,
          `${label('runtime')} ${s.runnerKind === 'codex_app_server' ? tr('commands.status_runtime_codex') : tr('commands.status_runtime_loop')}`,
          `${label('tools')} ${s.tools.length} (${[...new Set(s.tools.map((t) => t.toolset))].join(', ') || tr('commands.status_tools_none')})`,
          `${label('messages')} ${s.history.length}`,
          `${label('approvals')} ${tr(s.services.yolo ? 'commands.status_approvals_off' : 'commands.status_approvals_ask')}`,
          ...(ctx.hooks.statusLines?.() ?? []),
        ];
        return { output: lines.join('\n') };
      },
    },
    {
      name: 'usage',
      description: 'tokens and cost of this session',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const s = ctx.session;
        const t = s.totals;
        const u = t.usage;
        const window = contextLengthFor(s.runtime.model, s.runtime.contextLength ?? s.settings.config.model.context_length ?? undefined);
        const last = s.lastResult?.usage;
        const lines = [
          tr('commands.usage_turns', { turns: t.turns, calls: t.apiCalls }),
          // The one token definition (src/llm/token-summary.ts), as `hermes insights` and the dashboard.
          (() => {
            const k = usageSummary(u);
            return tr('commands.usage_tokens', { total: n(k.total), input: n(k.input), output: n(k.output), cache_read: n(k.cacheRead), cache_write: n(k.cacheWrite), reasoning: n(k.reasoning) });
          })(),
          t.costUsd === null ? tr('commands.usage_cost_unknown') : tr('commands.usage_cost', { cost: usd(t.costUsd) }),
        ];
        const sub = t.subagents;
        if (sub?.runs)
          lines.push(
            tr('commands.usage_subagents', { runs: sub.runs, calls: sub.apiCalls, input: n(sub.usage.input_tokens), output: n(sub.usage.output_tokens) }) +
              (sub.costUsd === null ? '' : tr('commands.usage_subagents_cost', { cost: usd(sub.costUsd) })),
          );
        if (last) lines.push(tr('commands.usage_context', { used: n(promptTokens(last)), window: n(window), percent: Math.round((promptTokens(last) / window) * 100) }));
        // Spend caps (config.yaml budgets:): this conversation and today, every process of this home.
        const budgets = s.budgetStatus();
        if (budgets.length) lines.push(`Budgets: ${budgets.join(' · ')} (hermes cost why for where it went)`);
        return { output: lines.join('\n') };
      },
    },
    {
      name: 'context',
      aliases: ['ctx'],
      description: 'what the next request costs, by part',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const s = ctx.session;
        const sys = estimateTextTokens(s.system);
        const tools = estimateToolsTokens(s.tools.map((t) => t.schema));
        const byRole: Record<string, number> = {};
        for (const m of s.history) byRole[m.role] = (byRole[m.role] ?? 0) + estimateMessagesTokens([m]);
        const hist = Object.values(byRole).reduce((a, b) => a + b, 0);
        const total = sys + tools + hist;
        const window = contextLengthFor(s.runtime.model, s.runtime.contextLength ?? s.settings.config.model.context_length ?? undefined);
        const pct = (x: number) => `${((x / window) * 100).toFixed(1)}%`;
        const lines = [
          tr('commands.context_system', { tokens: n(sys) }),
          tr('commands.context_tools', { tokens: n(tools), count: s.tools.length }),
          tr('commands.context_conversation', { tokens: n(hist), roles: Object.entries(byRole).map(([r, v]) => `${r} ${n(v)}`).join(', ') || tr('commands.context_empty') }),
          tr('commands.context_total', { tokens: n(total), window: n(window), percent: pct(total), threshold: Math.round((s.settings.config.compression?.threshold ?? 0.5) * 100) }),
        ];
        return { output: lines.join('\n') };
      },
    },
    modelCommand(),
    {
      name: 'personality',
      args: '[name | none]',
      description: 'show or set the tone of the answers (saved to config.yaml)',
      category: 'config',
      surfaces: ALL_SURFACES,
      completions: [...Object.keys(BUILTIN_PERSONALITIES), 'none'],
      run(ctx, args) {
        const s = ctx.session;
        const cfg = s.settings.config;
        const current = activePersonality(cfg);
        if (!args) {
          const lines = listPersonalities(cfg).map((p) => `${p.name === current ? '●' : '○'} ${p.name.padEnd(13)} ${p.prompt.length > 70 ? `${p.prompt.slice(0, 69)}…` : p.prompt}${p.builtin ? '' : ' (yours)'}`);
          return { output: `${lines.join('\n')}\nSet one with /personality <name>; /personality none turns it off. Add your own under agent.personalities in config.yaml.` };
        }
        const want = args.trim().toLowerCase();
        const p = NO_PERSONALITY.includes(want) ? null : findPersonality(cfg, want);
        if (p === undefined) return { output: `Unknown personality "${args.trim()}". Available: ${listPersonalities(cfg).map((x) => x.name).join(', ')}, none.` };
        const name = p ? p.name : '';
        s.settings.set('display.personality', name);
        s.refreshSystemPrompt();
        let saved = ' (saved to config.yaml)';
        try {
          setConfigKey(s.info.home, 'display.personality', name);
        } catch (e) {
          saved = ` (this session only: could not save it: ${(e as Error).message})`;
        }
        return { output: `${p ? `Personality: ${p.name}` : 'Personality off: the default tone'}${saved}. (The provider's prompt cache starts cold.)` };
      },
    },
    {
      name: 'tools',
      args: '[list | enable <name…> | disable <name…>]',
      description: 'list tools, or enable/disable them for this session',
      category: 'tools',
      surfaces: ALL_SURFACES,
      completions: ['list', 'enable', 'disable'],
      run(ctx, args) {
        const s = ctx.session;
        const [verb, ...names] = args.split(/\s+/).filter(Boolean);
        const avail = s.registry.availability(s.services);
        if (!verb || verb === 'list') {
          const active = new Set(s.tools.map((t) => t.name));
          const lines = avail
            .sort((a, b) => byString(a.toolset, b.toolset) || byString(a.name, b.name))
            .map((a) => `${active.has(a.name) ? '●' : '○'} ${a.name.padEnd(18)} ${a.toolset}${a.available ? '' : `  (unavailable: ${a.reason})`}`);
          return { output: `${lines.join('\n')}\n● enabled  ○ not enabled` };
        }
        if (verb !== 'enable' && verb !== 'disable') return { output: 'Usage: /tools [list | enable <name…> | disable <name…>]' };
        if (!names.length) return { output: `Usage: /tools ${verb} <name…>` };
        const known = new Set(avail.map((a) => a.name));
        const unknown = names.filter((x) => !known.has(x) && !knownToolsets(s.registry.toolsets()).includes(x));
        if (unknown.length) return { output: `Unknown tool(s): ${unknown.join(', ')}. See /tools list.` };
        const current = s.tools.map((t) => t.name);
        const next = verb === 'enable' ? [...new Set([...current, ...names])] : current.filter((x) => !names.includes(x));
        const disabled = (s.settings.config.agent.disabled_toolsets ?? []).filter((d) => verb === 'disable' || !names.includes(d));
        s.rebuildTools(next, verb === 'disable' ? [...new Set([...disabled, ...names])] : disabled);
        return { output: `${verb === 'enable' ? 'Enabled' : 'Disabled'} ${names.join(', ')}. ${s.tools.length} tools active. (Tool changes make the provider's prompt cache start cold.)` };
      },
    },
    {
      name: 'toolsets',
      description: 'list toolsets and their tools',
      category: 'tools',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const s = ctx.session;
        const active = new Set(s.tools.map((t) => t.name));
        const lines = [...s.registry.toolsets()]
          .sort(([a], [b]) => byString(a, b))
          .map(([ts, tools]) => `${tools.some((t) => active.has(t)) ? '●' : '○'} ${ts.padEnd(16)} ${tools.join(', ')}`);
        return { output: lines.join('\n') };
      },
    },
    {
      name: 'verbose',
      args: '[off|new|all|verbose]',
      description: 'tool progress: cycle or set off → new → all → verbose',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['off', 'new', 'all', 'verbose'],
      run(ctx, args) {
        const order: SessionPrefs['toolProgress'][] = ['off', 'new', 'all', 'verbose'];
        const p = ctx.session.prefs;
        if (args && !order.includes(args as SessionPrefs['toolProgress'])) return { output: tr('commands.verbose_usage') };
        p.toolProgress = (args as SessionPrefs['toolProgress']) || order[(order.indexOf(p.toolProgress) + 1) % order.length];
        return { output: tr('commands.verbose_mode', { mode: p.toolProgress }) };
      },
    },
    {
      name: 'reasoning',
      args: '[show|hide|none|low|medium|high|xhigh]',
      description: 'show/hide the model’s reasoning, or set reasoning effort',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['show', 'hide', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh'],
      run(ctx, args) {
        const s = ctx.session;
        const a = args.toLowerCase();
        if (!a) return { output: tr('commands.reasoning_state', { visibility: tr(s.prefs.showReasoning ? 'commands.reasoning_shown' : 'commands.reasoning_hidden'), effort: s.settings.config.agent.reasoning_effort || tr('commands.reasoning_default') }) };
        if (a === 'show' || a === 'hide') {
          s.prefs.showReasoning = a === 'show';
          return { output: tr(a === 'show' ? 'commands.reasoning_will_show' : 'commands.reasoning_will_hide') };
        }
        if (!['none', 'minimal', 'low', 'medium', 'high', 'xhigh'].includes(a)) return { output: tr('commands.reasoning_usage') };
        s.settings.set('agent.reasoning_effort', a === 'none' ? '' : a);
        return { output: tr('commands.reasoning_effort', { effort: a }) };
      },
    },
    {
      name: 'yolo',
      description: 'toggle asking before dangerous commands (hardline blocks always apply)',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const s = ctx.session.services;
        s.yolo = !s.yolo;
        return { output: s.yolo ? '⚠ YOLO on: dangerous commands run without asking (hardline blocks still apply).' : 'YOLO off: dangerous commands ask first.' };
      },
    },
    {
      name: 'approvals',
      args: '[manual|smart|off]',
      description: 'how dangerous commands are approved (for this session)',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['manual', 'smart', 'off'],
      run(ctx, args) {
        const s = ctx.session.services;
        const current = () => (s.yolo ? 'off' : ctx.session.settings.config.approvals?.mode === 'smart' ? 'smart' : 'manual');
        if (!args) return { output: tr('commands.approvals_state', { mode: current() }) };
        if (args === 'manual' || args === 'smart' || args === 'off') {
          s.yolo = args === 'off';
          if (args !== 'off') ctx.session.settings.set('approvals.mode', args);
          return { output: args === 'smart' ? tr('commands.approvals_set_smart') : tr('commands.approvals_set', { mode: args }) };
        }
        return { output: tr('commands.approvals_usage') };
      },
    },
    {
      name: 'busy',
      args: '[interrupt|queue|steer]',
      description: 'what typing while the agent works does',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['interrupt', 'queue', 'steer'],
      run(ctx, args) {
        const p = ctx.session.prefs;
        if (!args) return { output: tr('commands.busy_mode', { mode: p.busyInputMode }) };
        if (!['interrupt', 'queue', 'steer'].includes(args)) return { output: tr('commands.busy_usage') };
        p.busyInputMode = args as SessionPrefs['busyInputMode'];
        return { output: tr('commands.busy_mode', { mode: args }) };
      },
    },
    {
      name: 'config',
      description: 'the settings this session runs with',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const s = ctx.session;
        const c = s.settings.config;
        const rt = s.runtime;
        return {
          output: [
            `config:        ${s.info.home}/config.yaml`,
            `model:         ${rt.model} (${rt.provider}, ${rt.apiMode})`,
            `toolsets:      ${(s.info.explicit?.toolsets ?? c.toolsets).join(', ')}`,
            `max_turns:     ${c.agent.max_turns ?? 'unlimited'}`,
            `tool progress: ${s.prefs.toolProgress} · reasoning ${s.prefs.showReasoning ? 'shown' : 'hidden'} · busy input ${s.prefs.busyInputMode}`,
            `compression:   ${c.compression.enabled ? `at ${Math.round(c.compression.threshold * 100)}% of the context` : 'off'}`,
            `terminal:      ${c.terminal.backend}, timeout ${c.terminal.timeout}s`,
            'Change settings with `hermes config set <key> <value>`.',
          ].join('\n'),
        };
      },
    },
    {
      name: 'version',
      description: 'Hermes version',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run: () => ({ output: `hermes ${pkg.version}` }),
    },
    {
      name: 'quit',
      aliases: ['exit'],
      args: '[--delete]',
      description: 'leave (--delete also removes this session from the history)',
      category: 'session',
      surfaces: ['cli'],
      midTurn: true,
      completions: ['--delete'],
      async run(ctx, args) {
        if (!/(^|\s)--delete(\s|$)/.test(args)) return { action: 'quit' };
        const s = ctx.session;
        const store = s.info.store;
        if (!store || !s.persisted) return { action: 'quit', output: tr('commands.quit_nothing_saved') };
        if (!(await confirmDestructive(ctx, tr('commands.quit_delete_confirm', { id: s.id })))) return { output: tr('commands.quit_not_deleted') };
        const id = s.id;
        s.interrupt();
        await store.flush();
        await store.deleteSession(id);
        return { action: 'quit', output: tr('commands.quit_deleted', { id }) };
      },
    },
  ];
}

/** The registry with the built-in commands. Layers add theirs with `registry.add(...)`. */
export function createCommandRegistry(opts: { home?: string; externalDirs?: string[] } = {}): CommandRegistry {
  const r = new CommandRegistry();
  r.add(...builtinCommands(() => r));
  r.add(...stateCommands(), reloadSkillsCommand(() => r));
  r.add(reloadMcpCommand());
  r.add(...fileCommands(), ...displayCommands(), ...workCommands(), ...infoCommands());
  r.add(bundlesCommand(), ...surfaceExtraCommands(), moaCommand());
  registerBundleCommands(r, opts.home ?? hermesHome(), opts.externalDirs ?? []);
  registerSkillCommands(r, opts.home ?? hermesHome(), opts.externalDirs ?? []);
  r.add(cronCommand(), suggestionsCommand());
  r.add(kanbanCommand());
  r.add(sandboxCommand());
  r.add(codexRuntimeCommand());
  r.add(insightsCommand());
  r.add(curatorCommand());
  r.add(browserCommand());
  r.add(voiceCommand());
  r.add(pluginsCommand());
  r.add(...chatCommands(() => r), ...billingCommands());
  // Plugins' slash commands (ctx.register_command); a built-in name is never taken over.
  const host = opts.home ? pluginHost(opts.home) : currentPluginHost();
  for (const def of (host?.commands() ?? []).map(pluginCommandDef)) if (!r.list().some((d) => d.name === def.name || d.aliases?.includes(def.name))) r.add(def);
  return r;
}
