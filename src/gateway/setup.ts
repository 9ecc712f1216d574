// `hermes gateway setup`: an interactive wizard per platform, driven by each platform's registry
// entry (its questions, a connection test, the allowlist). Secrets (tokens, passwords, keys) go
// to HERMES_HOME/.env (0600), everything else to config.yaml. Nothing is written until the end, and
// a cancelled wizard writes nothing.
import { randomBytes } from 'node:crypto';
import { updateEnvFile } from '../state/env.ts';
import { setConfigKey } from '../state/config.ts';
import { paths } from '../state/paths.ts';
import { envPrefix } from './auth.ts';
import { platformEnabled } from './config.ts';
import { getPlatform, listPlatforms } from './platforms/registry.ts';

export interface SetupPlan {
  env: Record<string, string | null>;
  config: Record<string, unknown>;
  platforms: string[];
}

export function applySetup(home: string, plan: SetupPlan): void {
  if (Object.keys(plan.env).length) updateEnvFile(paths.env(home), plan.env);
  for (const [k, v] of Object.entries(plan.config)) setConfigKey(home, k, v);
}

class Cancelled extends Error {}

const mask = (v: string) => (v.length <= 4 ? '••••' : `••••${v.slice(-4)}`);

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
    const all = listPlatforms();
    const chosen = await ask(
      p.multiselect<string>({
        message: 'Which platforms should Hermes answer on? (space to select, enter to continue)',
        options: all.map((d) => ({ value: d.name, label: d.label, hint: platformEnabled(d.name, config, env) ? 'configured' : undefined })),
        required: true,
      }),
    );
    plan.platforms = chosen;
    for (const name of chosen) {
      const def = getPlatform(name)!;
      if (name === 'api_server') {
        plan.env.API_SERVER_ENABLED = 'true';
        const key = await ask(p.text({ message: 'API server key (clients send it as a bearer token; empty = generate one)', defaultValue: '' }));
        plan.env.API_SERVER_KEY = key.trim() || randomBytes(24).toString('base64url');
        if (!key.trim()) generated.push('API_SERVER_KEY');
        continue;
      }
      if (name === 'webhook') {
        plan.env.WEBHOOK_ENABLED = 'true';
        const secret = await ask(p.text({ message: 'Global webhook secret (empty = generate one)', defaultValue: '' }));
        plan.env.WEBHOOK_SECRET = secret.trim() || randomBytes(24).toString('base64url');
        if (!secret.trim()) generated.push('WEBHOOK_SECRET');
        continue;
      }
      if (!def.setup) {
        p.note(`${def.label} has no setup questions; configure it in ~/.hermes/.env (see its documentation).`, def.label);
        continue;
      }
      if (def.setup.intro) p.note(def.setup.intro, def.label);
      for (;;) {
        for (const f of def.setup.fields) {
          const current = f.config ? undefined : (plan.env[f.key] ?? env[f.key]) || undefined;
          const validate = (v: string | undefined) => {
            const t = (v ?? '').trim();
            if (!t) return current || f.optional ? undefined : `${f.prompt} is required`;
            return f.validate?.(t);
          };
          const message = current ? `${f.prompt} (enter keeps ${f.secret ? mask(current) : current})` : f.prompt;
          const v = f.secret ? await ask(p.password({ message, validate })) : await ask(p.text({ message, placeholder: f.placeholder, validate }));
          const value = (v ?? '').trim();
          if (!value) continue;
          if (f.config) plan.config[f.key] = value;
          else plan.env[f.key] = value;
        }
        if (!def.probe) break;
        const spin = p.spinner();
        spin.start(`Testing the ${def.label} connection`);
        try {
          const who = await def.probe({ ...env, ...nonNull(plan.env) }, config);
          spin.stop(`${def.label}: connected (${who})`);
          break;
        } catch (e) {
          spin.error(`${def.label}: the connection test failed: ${(e as Error).message}`);
          const next = await ask(p.select({ message: 'What now?', options: [{ value: 'retry', label: 'Enter the credentials again' }, { value: 'keep', label: 'Save them anyway' }, { value: 'skip', label: `Skip ${def.label}` }] }));
          if (next === 'keep') break;
          if (next === 'skip') {
            for (const f of def.setup.fields) delete plan.env[f.key];
            plan.platforms = plan.platforms.filter((x) => x !== name);
            break;
          }
        }
      }
      if (def.setup.allowlistHint && plan.platforms.includes(name)) {
        const key = `${envPrefix(name)}_ALLOWED_USERS`;
        const v = await ask(p.text({ message: `${def.label}: who may talk to Hermes? (${def.setup.allowlistHint}, comma-separated; empty = pairing codes only)`, defaultValue: env[key] ?? '', placeholder: env[key] ?? '' }));
        if (v.trim()) plan.env[key] = v.trim();
      }
    }
    const n = Object.keys(plan.env).length + Object.keys(plan.config).length;
    const ok = await ask(p.confirm({ message: `Save ${n} setting(s) (secrets to ${paths.env(home)})?` }));
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

function nonNull(o: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => e[1] !== null));
}
