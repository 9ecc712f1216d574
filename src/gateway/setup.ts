// `hermes gateway setup`: an interactive wizard per platform. Secrets (tokens, passwords, keys) go
// to HERMES_HOME/.env (0600), everything else to config.yaml. Nothing is written until the end, and
// a cancelled wizard writes nothing.
import { randomBytes } from 'node:crypto';
import { updateEnvFile } from '../state/env.ts';
import { setConfigKey } from '../state/config.ts';
import { paths } from '../state/paths.ts';
import { PLATFORM_LABELS, platformEnabled, type PlatformName } from './config.ts';

export interface SetupPlan {
  env: Record<string, string | null>;
  config: Record<string, unknown>;
  platforms: PlatformName[];
}

export function applySetup(home: string, plan: SetupPlan): void {
  if (Object.keys(plan.env).length) updateEnvFile(paths.env(home), plan.env);
  for (const [k, v] of Object.entries(plan.config)) setConfigKey(home, k, v);
}

class Cancelled extends Error {}

export async function runSetupWizard(home: string, env: NodeJS.ProcessEnv, config: Record<string, unknown>): Promise<SetupPlan | null> {
  const p = await import('@clack/prompts');
  const ask = async <T>(v: Promise<T>): Promise<Exclude<T, symbol>> => {
    const r = await v;
    if (p.isCancel(r)) throw new Cancelled();
    return r as Exclude<T, symbol>;
  };
  const plan: SetupPlan = { env: {}, config: {}, platforms: [] };
  /** Secrets Hermes made up here: shown once at the end, since nobody typed them. */
  const generated: string[] = [];
  try {
    p.intro('Hermes gateway setup');
    const all: PlatformName[] = ['telegram', 'discord', 'slack', 'email', 'api_server', 'webhook'];
    const chosen = await ask(
      p.multiselect<PlatformName>({
        message: 'Which platforms should Hermes answer on? (space to select, enter to continue)',
        options: all.map((n) => ({ value: n, label: PLATFORM_LABELS[n], hint: platformEnabled(n, config, env) ? 'configured' : undefined })),
        required: true,
      }),
    );
    plan.platforms = chosen;
    const allowlist = async (platform: string, what: string) => {
      const v = await ask(p.text({ message: `${PLATFORM_LABELS[platform as PlatformName]}: who may talk to Hermes? (${what}, comma-separated; empty = pairing codes only)`, defaultValue: env[`${platform.toUpperCase()}_ALLOWED_USERS`] ?? '', placeholder: env[`${platform.toUpperCase()}_ALLOWED_USERS`] ?? '' }));
      if (v.trim()) plan.env[`${platform.toUpperCase()}_ALLOWED_USERS`] = v.trim();
    };
    const required = (label: string) => (v: string | undefined) => (v && v.trim() ? undefined : `${label} is required`);
    for (const n of chosen) {
      switch (n) {
        case 'telegram': {
          plan.env.TELEGRAM_BOT_TOKEN = await ask(p.password({ message: 'Telegram bot token (from @BotFather)', validate: required('The token') }));
          await allowlist('telegram', 'numeric user ids or @usernames');
          break;
        }
        case 'discord': {
          plan.env.DISCORD_BOT_TOKEN = await ask(p.password({ message: 'Discord bot token (Developer Portal → Bot; enable the Message Content intent)', validate: required('The token') }));
          await allowlist('discord', 'user ids');
          break;
        }
        case 'slack': {
          plan.env.SLACK_BOT_TOKEN = await ask(p.password({ message: 'Slack bot token (xoxb-…)', validate: (v) => (v?.startsWith('xoxb-') ? undefined : 'A bot token starts with xoxb-') }));
          plan.env.SLACK_APP_TOKEN = await ask(p.password({ message: 'Slack app-level token for Socket Mode (xapp-…)', validate: (v) => (v?.startsWith('xapp-') ? undefined : 'An app token starts with xapp-') }));
          await allowlist('slack', 'member ids like U0123');
          break;
        }
        case 'email': {
          plan.env.EMAIL_ADDRESS = await ask(p.text({ message: "The agent's email address", validate: (v) => (/^[^@\s]+@[^@\s]+$/.test(v ?? '') ? undefined : 'Enter an email address') }));
          plan.env.EMAIL_PASSWORD = await ask(p.password({ message: 'Password (an app password with 2FA)', validate: required('The password') }));
          plan.env.EMAIL_IMAP_HOST = await ask(p.text({ message: 'IMAP host', placeholder: 'imap.gmail.com', validate: required('The IMAP host') }));
          plan.env.EMAIL_SMTP_HOST = await ask(p.text({ message: 'SMTP host', placeholder: 'smtp.gmail.com', validate: required('The SMTP host') }));
          await allowlist('email', 'sender addresses');
          break;
        }
        case 'api_server': {
          plan.env.API_SERVER_ENABLED = 'true';
          const key = await ask(p.text({ message: 'API server key (clients send it as a bearer token; empty = generate one)', defaultValue: '' }));
          plan.env.API_SERVER_KEY = key.trim() || randomBytes(24).toString('base64url');
          if (!key.trim()) generated.push('API_SERVER_KEY');
          break;
        }
        case 'webhook': {
          plan.env.WEBHOOK_ENABLED = 'true';
          const secret = await ask(p.text({ message: 'Global webhook secret (empty = generate one)', defaultValue: '' }));
          plan.env.WEBHOOK_SECRET = secret.trim() || randomBytes(24).toString('base64url');
          if (!secret.trim()) generated.push('WEBHOOK_SECRET');
          break;
        }
      }
    }
    const ok = await ask(p.confirm({ message: `Save ${Object.keys(plan.env).length} setting(s) to ${paths.env(home)}?` }));
    if (!ok) throw new Cancelled();
    applySetup(home, plan);
    for (const name of generated) {
      const use = name === 'API_SERVER_KEY' ? 'Clients send it as `Authorization: Bearer <key>`.' : 'Senders sign or authenticate webhooks with it.';
      p.note(`${plan.env[name]}\n\n${use} It is shown only now; see it again with\n\`hermes config get ${name} --reveal\`.`, `Generated ${name}`);
    }
    p.outro('Saved. Start the gateway with `hermes gateway run` (foreground) or `hermes gateway install` (as a service).');
    return plan;
  } catch (e) {
    if (e instanceof Cancelled) {
      p.cancel('Setup cancelled; nothing was written.');
      return null;
    }
    throw e;
  }
}
