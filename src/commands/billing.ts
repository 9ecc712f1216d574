// /topup and /subscription: where the current provider's billing lives. Hermes manages the Nous
// Portal's balance and plan (both open the portal in the browser; nothing is charged here); for a
// third-party provider the billing page is the one link to give (Hermes's agent/billing_links.py
// table); any other provider has none we know of, said in one line.
import type { CommandContext, CommandDef } from './registry.ts';

interface BillingPage {
  label: string;
  url: string;
  slugs: string[];
  hosts: string[];
}

/** Providers' "add credits / manage billing" pages, by provider id and by API host. */
export const BILLING_PAGES: BillingPage[] = [
  { label: 'OpenAI', url: 'https://platform.openai.com/settings/organization/billing', slugs: ['openai', 'openai-api'], hosts: ['api.openai.com'] },
  { label: 'Anthropic', url: 'https://console.anthropic.com/settings/billing', slugs: ['anthropic'], hosts: ['api.anthropic.com'] },
  { label: 'OpenRouter', url: 'https://openrouter.ai/settings/credits', slugs: ['openrouter'], hosts: ['openrouter.ai'] },
  { label: 'xAI', url: 'https://console.x.ai/team/default/billing', slugs: ['xai', 'xai-oauth'], hosts: ['api.x.ai'] },
  { label: 'DeepSeek', url: 'https://platform.deepseek.com/top_up', slugs: ['deepseek'], hosts: ['api.deepseek.com'] },
  { label: 'Groq', url: 'https://console.groq.com/settings/billing', slugs: ['groq'], hosts: ['api.groq.com'] },
  { label: 'Mistral', url: 'https://console.mistral.ai/billing', slugs: ['mistral'], hosts: ['api.mistral.ai'] },
  { label: 'Together AI', url: 'https://api.together.ai/settings/billing', slugs: ['together'], hosts: ['api.together.ai', 'api.together.xyz'] },
  { label: 'Fireworks AI', url: 'https://fireworks.ai/account/billing', slugs: ['fireworks'], hosts: ['fireworks.ai'] },
  { label: 'Perplexity', url: 'https://www.perplexity.ai/settings/api', slugs: ['perplexity'], hosts: ['perplexity.ai'] },
  { label: 'Google AI', url: 'https://aistudio.google.com/app/billing', slugs: ['google', 'gemini'], hosts: ['generativelanguage.googleapis.com'] },
  { label: 'Cohere', url: 'https://dashboard.cohere.com/billing', slugs: ['cohere'], hosts: [] },
  { label: 'Moonshot AI', url: 'https://platform.moonshot.ai/console/pay', slugs: ['moonshot'], hosts: [] },
  { label: 'NVIDIA', url: 'https://build.nvidia.com/settings/billing', slugs: ['nvidia'], hosts: [] },
];

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
};
const hostMatches = (host: string, want: string) => host === want || host.endsWith(`.${want}`);

/** Where the session's provider bills: the Nous Portal, a provider's page, or none known. */
export async function billingFor(ctx: CommandContext): Promise<{ nous: true; url: string } | { nous: false; label: string; url: string | null }> {
  const rt = ctx.session.runtime;
  const slug = String(rt.provider ?? '').toLowerCase();
  const host = hostOf(String(rt.baseUrl ?? ''));
  if (slug === 'nous' || slug === 'nous-portal' || hostMatches(host, 'inference-api.nousresearch.com')) {
    const { nousPortalUrl } = await import('../auth/oauth/nous.ts');
    return { nous: true, url: nousPortalUrl(ctx.session.info.env) };
  }
  const page = BILLING_PAGES.find((p) => p.slugs.includes(slug)) ?? BILLING_PAGES.find((p) => p.hosts.some((h) => hostMatches(host, h)));
  return page ? { nous: false, label: page.label, url: page.url } : { nous: false, label: slug || 'this provider', url: null };
}

const noBilling = (label: string) => `${label} has no billing page Hermes knows of: /topup and /subscription manage the Nous Portal (hermes model → Nous Portal).`;

export function billingCommands(): CommandDef[] {
  return [
    {
      name: 'subscription',
      aliases: ['upgrade'],
      description: 'your Nous Portal plan: change it in the browser',
      category: 'info',
      surfaces: ['cli'],
      midTurn: true,
      async run(ctx) {
        const b = await billingFor(ctx);
        if (b.nous) return { output: `Nous Portal plan: view and change it on the portal: ${b.url}/billing (plans are changed in the browser; nothing is charged here).` };
        return { output: b.url ? `${b.label} has no subscription Hermes manages; its billing page: ${b.url}` : noBilling(b.label) };
      },
    },
    {
      name: 'topup',
      description: "your provider's balance and billing: the Nous Portal, or the provider's billing page",
      category: 'info',
      surfaces: ['cli', 'gateway', 'acp'],
      midTurn: true,
      async run(ctx) {
        const b = await billingFor(ctx);
        if (b.nous) return { output: `Manage billing on the Nous Portal: ${b.url}/billing?topup=open\nTop up in the browser; your balance updates there.` };
        return { output: b.url ? `Add credits for ${b.label} on its billing page: ${b.url}` : noBilling(b.label) };
      },
    },
  ];
}
