// Slash commands that report: /whoami, /profile, /platforms (/gateway), /debug, /update, and /reload
// (.env into the running session).
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { buildDebugReport } from '../session/diagnostics.ts';
import { loadEnvFile } from '../state/env.ts';
import { defaultHermesRoot, packageRoot, paths } from '../state/paths.ts';
import { dotenvNamesSlot } from '../tools/env/settings.ts';
import { ALL_SURFACES, type CommandDef } from './registry.ts';

export function infoCommands(): CommandDef[] {
  return [
    {
      name: 'whoami',
      description: 'who you are to Hermes here, and what you may run',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        if (ctx.hooks.whoami) return { output: ctx.hooks.whoami() };
        const user = process.env.USER ?? process.env.LOGNAME ?? 'you';
        return { output: `${user} on this machine (${ctx.surface}): admin — every slash command is available to you.` };
      },
    },
    {
      name: 'profile',
      description: 'the active profile and its home directory',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      run(ctx) {
        const home = ctx.session.info.home;
        const name = basename(dirname(home)) === 'profiles' && dirname(dirname(home)) === defaultHermesRoot(ctx.session.info.env) ? basename(home) : 'default';
        return { output: `Profile: ${name}\nHome:    ${home}` };
      },
    },
    {
      name: 'platforms',
      aliases: ['gateway'],
      description: 'messaging gateway and platform status',
      category: 'info',
      surfaces: ['cli'],
      midTurn: true,
      async run(ctx) {
        const gateway = ctx.hooks.gatewayPorts;
        if (!gateway) return { output: '/platforms is not available here: run `hermes gateway status`.' };
        return { output: await gateway.status(ctx.session.info.home) };
      },
    },
    {
      name: 'debug',
      args: '[local]',
      description: 'write a debug report (setup summary + recent logs, secrets redacted) to a file',
      category: 'info',
      surfaces: ['cli'],
      run(ctx) {
        const s = ctx.session;
        const report = buildDebugReport({ home: s.info.home, config: s.settings.config, env: s.info.env, lines: 200 });
        const dir = paths.logs(s.info.home);
        mkdirSync(dir, { recursive: true });
        const file = join(dir, `debug-report-${new Date().toISOString().replace(/[:.]/g, '-')}.txt`);
        writeFileSync(file, report, { mode: 0o600 });
        return { output: `Debug report written to ${file} (secrets redacted; read it before you share it). To upload it to a paste service: hermes debug share.` };
      },
    },
    {
      name: 'update',
      description: 'check whether a newer Hermes is available',
      category: 'info',
      surfaces: ALL_SURFACES,
      midTurn: true,
      async run() {
        const { checkForUpdate, installInfo } = await import('../state/install.ts');
        const c = checkForUpdate(installInfo(packageRoot()));
        const head = c.available === null ? `Could not check (${c.method} install, ${c.current}).` : c.available ? `An update is available: ${c.current} → ${c.latest}.` : `Hermes is up to date (${c.current}).`;
        return { output: `${head}${c.note ? `\n${c.note}` : ''}${c.available ? '\nRun `hermes update` in a terminal to install it.' : ''}` };
      },
    },
    {
      name: 'reload',
      description: 'reload HERMES_HOME/.env into this session (new keys take effect now)',
      category: 'tools',
      surfaces: ['cli'],
      run(ctx) {
        const s = ctx.session;
        const before = { ...s.info.env };
        const vars = loadEnvFile(paths.env(s.info.home), s.info.env);
        if (s.info.env !== process.env) loadEnvFile(paths.env(s.info.home), process.env);
        const changed = [...vars.keys()].filter((k) => before[k] !== vars.get(k));
        s.services.slots.set(dotenvNamesSlot, [...vars.keys()]);
        try {
          s.switchModel({});
        } catch (e) {
          return { output: `Reloaded ${vars.size} variable(s), but the provider could not be set up again: ${(e as Error).message}` };
        }
        return { output: changed.length ? `Reloaded .env: ${changed.length} changed (${changed.join(', ')}).` : `Reloaded .env: ${vars.size} variable(s), none changed.` };
      },
    },
  ];
}
