// What the slash commands /platforms and /handoff need from the messaging gateway, lent to them by
// the terminal (SurfaceHooks.gateway, src/commands/registry.ts): the commands sit below the surfaces
// and never import the gateway. Everything here loads on use.
import type { GatewayPorts } from '../commands/registry.ts';

export const gatewayPorts: GatewayPorts = {
  async status(home) {
    const { gatewayStatus } = await import('./daemon.ts');
    const st = gatewayStatus(home);
    if (!st.running) return 'The gateway is not running. Start it with `hermes gateway run` (foreground) or `hermes gateway start`.';
    const rows = Object.entries(st.platforms).map(([name, p]) => `  ${name.padEnd(12)} ${p.state}${p.last_error ? ` — ${p.last_error}` : ''}${p.next_retry_at ? ` (retry ${p.next_retry_at})` : ''}`);
    return `Gateway running (pid ${st.pid}${st.startedAt ? `, since ${st.startedAt}` : ''}).\n${rows.length ? rows.join('\n') : '  no platforms configured'}\nLog: ${st.logPath}`;
  },
  async handoffProblem(platform, config, env) {
    const [{ getPlatform, platformEnabled }, { homeChannel }] = await Promise.all([import('./platforms/registry.ts'), import('./config.ts')]);
    if (!getPlatform(platform)) return `Unknown platform "${platform}". Hand off to a messaging platform the gateway runs, e.g. /handoff telegram.`;
    if (!platformEnabled(platform, config, env)) return `${platform} is not set up for the gateway: \`hermes gateway setup\` first.`;
    if (!homeChannel(platform, env, config)) return `${platform} has no home channel to hand off to: send /sethome in the chat you want, or set ${platform.toUpperCase()}_HOME_CHANNEL.`;
    return null;
  },
};
