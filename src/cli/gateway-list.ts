// `hermes gateway list`: the gateway of every profile on this machine — running or not, and the
// platforms each one has configured (from the profile's own config.yaml and .env) or connected.
import { join } from 'node:path';
import { gatewayStatus } from '../gateway/control.ts';
// (From config.ts, which registers the built-in platforms: the registry alone is empty.)
import { enabledPlatforms } from '../gateway/config.ts';
import { loadConfig } from '../state/config.ts';
import { readEnvFile } from '../state/env.ts';
import { hermesHome } from '../state/paths.ts';
import { profileDir, profileNameOf } from '../state/profiles.ts';
import { profileNames } from './profile-cmd.ts';

interface Row {
  profile: string;
  home: string;
  current: boolean;
  running: boolean;
  pid: number | null;
  platforms: { name: string; state: string }[];
  error?: string;
}

function row(name: string, current: string): Row {
  const home = profileDir(name);
  const st = gatewayStatus(home);
  const r: Row = { profile: name, home, current: name === current, running: st.running, pid: st.pid ?? null, platforms: [] };
  let configured: string[] = [];
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, ...Object.fromEntries(readEnvFile(join(home, '.env'))), HERMES_HOME: home };
    configured = enabledPlatforms(loadConfig(home, env).config, env);
  } catch (e) {
    r.error = (e as Error).message.split('\n')[0];
  }
  for (const name of new Set([...configured, ...Object.keys(st.platforms)])) r.platforms.push({ name, state: st.platforms[name]?.state ?? 'configured' });
  return r;
}

export async function gatewayList(o: { json?: boolean }): Promise<void> {
  const current = profileNameOf(hermesHome());
  const rows = profileNames().map((n) => row(n, current));
  if (o.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const w = Math.max(7, ...rows.map((r) => r.profile.length));
  const lines = [`  ${'PROFILE'.padEnd(w)}  ${'GATEWAY'.padEnd(20)}  PLATFORMS`];
  for (const r of rows) {
    const gw = r.running ? `running (pid ${r.pid})` : 'stopped';
    const platforms = r.error ? `config problem: ${r.error}` : r.platforms.length ? r.platforms.map((p) => (p.state === 'configured' ? p.name : `${p.name} (${p.state})`)).join(', ') : 'none configured';
    lines.push(`${r.current ? '*' : ' '} ${r.profile.padEnd(w)}  ${gw.padEnd(20)}  ${platforms}`);
  }
  const up = rows.filter((r) => r.running).length;
  lines.push('', `${up} of ${rows.length} gateway(s) running. Start one with \`hermes -p <profile> gateway start\`.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
