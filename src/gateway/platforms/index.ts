// Builds the adapters for the platforms that are configured. Each platform module (and its SDK)
// is imported only when that platform starts. `deps` reach each module for tests.
import { platformSettings, type PlatformName } from '../config.ts';
import type { GatewayRunner } from '../runner.ts';
import type { PlatformAdapter } from '../types.ts';
import type { DiscordDeps } from './discord.ts';
import type { EmailDeps } from './email.ts';
import type { SlackDeps } from './slack.ts';
import type { TelegramDeps } from './telegram.ts';

export interface PlatformDeps {
  telegram?: TelegramDeps;
  discord?: DiscordDeps;
  slack?: SlackDeps;
  email?: EmailDeps;
}

export async function createAdapter(name: PlatformName, runner: GatewayRunner, deps: PlatformDeps = {}): Promise<PlatformAdapter> {
  const env = runner.env;
  const config = runner.config as unknown as Record<string, unknown>;
  const log = (line: string) => runner.log(line);
  switch (name) {
    case 'telegram': {
      const { TelegramAdapter } = await import('./telegram.ts');
      const token = env.TELEGRAM_BOT_TOKEN || String(platformSettings(config, 'telegram').token ?? '');
      return new TelegramAdapter({ token, env, config, home: runner.home, log, deps: deps.telegram });
    }
    case 'discord': {
      const { DiscordAdapter } = await import('./discord.ts');
      const token = env.DISCORD_BOT_TOKEN || String(platformSettings(config, 'discord').token ?? '');
      return new DiscordAdapter({ token, env, config, log, deps: deps.discord });
    }
    case 'slack': {
      const { SlackAdapter } = await import('./slack.ts');
      const s = platformSettings(config, 'slack');
      return new SlackAdapter({ botToken: env.SLACK_BOT_TOKEN || String(s.bot_token ?? ''), appToken: env.SLACK_APP_TOKEN || String(s.app_token ?? ''), env, config, log, deps: deps.slack });
    }
    case 'email': {
      const { EmailAdapter, emailSettings } = await import('./email.ts');
      const settings = emailSettings(env, config);
      if (!settings) throw new Error('email needs EMAIL_ADDRESS, EMAIL_PASSWORD, EMAIL_IMAP_HOST and EMAIL_SMTP_HOST');
      return new EmailAdapter({ settings, home: runner.home, log, deps: deps.email });
    }
    case 'api_server': {
      const { ApiServer, apiServerSettings } = await import('./api-server.ts');
      return new ApiServer(runner, apiServerSettings(env, config));
    }
    case 'webhook': {
      const { WebhookServer, webhookSettings } = await import('./webhook.ts');
      return new WebhookServer(runner, webhookSettings(env, config));
    }
  }
}
