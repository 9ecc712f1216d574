// Slash commands about what the person sees and sends: /timestamps, /statusbar, /focus, /footer,
// /fast, /redraw, /prompt (compose in $EDITOR), /copy, /image, /paste.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { messageText } from '../agent/repair.ts';
import type { SessionPrefs } from '../session/session.ts';
import { setConfigKey } from '../state/config.ts';
import { expandHome } from '../state/paths.ts';
import { ALL_SURFACES, type CommandContext, type CommandDef } from './registry.ts';

type Toggle = 'timestamps' | 'statusBar' | 'focus' | 'footer';

/** on | off | status | (nothing = toggle) for a boolean display preference, saved to config.yaml. */
function toggle(ctx: CommandContext, args: string, key: Toggle, configKey: string, label: string, explain: (on: boolean) => string): { output: string } {
  const p = ctx.session.prefs;
  const a = args.trim().toLowerCase();
  if (a === 'status') return { output: `${label}: ${p[key] ? 'on' : 'off'}.` };
  if (a && a !== 'on' && a !== 'off') return { output: `Usage: /${configKey.split('.').pop()} [on|off|status]` };
  const on = a ? a === 'on' : !p[key];
  p[key] = on;
  let saved = '';
  try {
    setConfigKey(ctx.session.info.home, configKey, on);
    ctx.session.settings.set(`display.${configKey.split('.').pop()!}`, on);
  } catch (e) {
    saved = ` (this session only: ${(e as Error).message})`;
  }
  return { output: `${label}: ${on ? 'on' : 'off'}${saved}. ${explain(on)}`.trim() };
}

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.bmp': 'image/bmp', '.heic': 'image/heic', '.heif': 'image/heif', '.avif': 'image/avif' };
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** A local image as a data: URL (HEIC/AVIF converted to JPEG when ffmpeg can), or an error for the person. */
export async function imageDataUrl(path: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<{ url: string; note?: string } | { error: string }> {
  const p = resolve(cwd, expandHome(path));
  if (!existsSync(p) || !statSync(p).isFile()) return { error: `No such file: ${p}` };
  const type = IMAGE_TYPES[extname(p).toLowerCase()];
  if (!type) return { error: `${p} is not an image Hermes can send (png, jpg, gif, webp, bmp, heic, avif).` };
  const size = statSync(p).size;
  if (size > MAX_IMAGE_BYTES) return { error: `${p} is ${(size / 1048576).toFixed(1)} MB; the limit is 20 MB.` };
  const { commonImageFormat } = await import('../media/image-fit.ts');
  const img = await commonImageFormat(readFileSync(p), type, env);
  return { url: `data:${img.mime};base64,${img.bytes.toString('base64')}`, ...(img.note ? { note: img.note } : {}) };
}

export function displayCommands(): CommandDef[] {
  return [
    {
      name: 'timestamps',
      aliases: ['ts'],
      args: '[on|off|status]',
      description: 'toggle [HH:MM] timestamps on messages and /history',
      category: 'config',
      surfaces: ['cli'],
      midTurn: true,
      completions: ['on', 'off', 'status'],
      run: (ctx, args) => toggle(ctx, args, 'timestamps', 'display.timestamps', 'Timestamps', () => ''),
    },
    {
      name: 'statusbar',
      aliases: ['sb'],
      description: 'toggle the model · context · cost line under the input',
      category: 'config',
      surfaces: ['cli'],
      midTurn: true,
      completions: ['on', 'off', 'status'],
      run: (ctx, args) => toggle(ctx, args, 'statusBar', 'display.statusbar', 'Status bar', () => ''),
    },
    {
      name: 'focus',
      args: '[on|off|status]',
      description: 'focus view: show only your prompt and the final answer',
      category: 'config',
      surfaces: ['cli'],
      midTurn: true,
      completions: ['on', 'off', 'status'],
      run: (ctx, args) => toggle(ctx, args, 'focus', 'display.focus', 'Focus view', (on) => (on ? 'Tool lines and reasoning are hidden.' : '')),
    },
    {
      name: 'footer',
      args: '[on|off|status]',
      description: 'a runtime footer (model · tokens · cost) under final replies',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['on', 'off', 'status'],
      run: (ctx, args) => toggle(ctx, args, 'footer', 'display.runtime_footer', 'Runtime footer', () => ''),
    },
    {
      name: 'fast',
      args: '[normal|fast|auto|cold|status] [--global]',
      description: 'processing tier: fast = priority processing, cold = flex (cheaper, slower)',
      category: 'config',
      surfaces: ALL_SURFACES,
      midTurn: true,
      completions: ['normal', 'fast', 'auto', 'cold', 'status', '--global'],
      run(ctx, args) {
        const p = ctx.session.prefs;
        const parts = args.toLowerCase().split(/\s+/).filter(Boolean);
        const global = parts.includes('--global');
        const want = parts.find((x) => x !== '--global') ?? '';
        const map: Record<string, SessionPrefs['fast']> = { on: 'fast', off: 'normal', normal: 'normal', fast: 'fast', auto: 'auto', cold: 'cold' };
        if (!want || want === 'status') return { output: `Processing tier: ${p.fast ?? 'normal'}. /fast fast asks for priority processing (OpenAI service_tier priority, Anthropic priority capacity).` };
        const tier = map[want];
        if (!tier) return { output: 'Usage: /fast [normal|fast|auto|cold|status] [--global]' };
        p.fast = tier;
        let saved = '';
        if (global) {
          try {
            setConfigKey(ctx.session.info.home, 'agent.service_tier', tier);
            saved = ' (saved to config.yaml)';
          } catch (e) {
            saved = ` (this session only: ${(e as Error).message})`;
          }
        }
        return { output: `Processing tier: ${tier}${saved}, from the next request.` };
      },
    },
    {
      name: 'redraw',
      description: 'repaint the screen (after the terminal got out of step)',
      category: 'session',
      surfaces: ['cli'],
      midTurn: true,
      run: () => ({ action: 'redraw' }),
    },
    {
      name: 'prompt',
      aliases: ['compose'],
      args: '[initial text]',
      description: 'write your next prompt in $EDITOR, then send it',
      category: 'session',
      surfaces: ['cli'],
      async run(ctx, args) {
        if (!ctx.hooks.compose) return { output: 'This surface has no editor to compose in.' };
        const text = await ctx.hooks.compose(args);
        if (!text?.trim()) return { output: 'Nothing written: nothing sent.' };
        return { send: text };
      },
    },
    {
      name: 'copy',
      args: '[N]',
      description: 'copy the last answer (or the N-th last) to the clipboard',
      category: 'info',
      surfaces: ['cli'],
      midTurn: true,
      async run(ctx, args) {
        const n = args.trim() ? Number(args.trim()) : 1;
        if (!Number.isInteger(n) || n < 1) return { output: 'Usage: /copy [N] (1 = the last answer)' };
        const answers = ctx.session.history.filter((m) => m.role === 'assistant' && messageText(m.content).trim()).map((m) => messageText(m.content));
        const text = answers[answers.length - n];
        if (text === undefined) return { output: answers.length ? `There are only ${answers.length} answers.` : 'No answer to copy yet.' };
        if (!ctx.hooks.copy) return { output: 'This surface has no clipboard.' };
        const how = await ctx.hooks.copy(text);
        return { output: `Copied ${text.length.toLocaleString('en-US')} characters ${how}.` };
      },
    },
    {
      name: 'image',
      args: '<path>',
      description: 'attach a local image to your next prompt',
      category: 'info',
      surfaces: ['cli'],
      midTurn: true,
      async run(ctx, args) {
        const s = ctx.session;
        if (!args.trim()) return { output: s.pendingImages.length ? `${s.pendingImages.length} image(s) attached to your next prompt. /image clear drops them.` : 'Usage: /image <path>' };
        if (args.trim() === 'clear') {
          const n = s.pendingImages.splice(0).length;
          return { output: `Dropped ${n} attached image(s).` };
        }
        const r = await imageDataUrl(args.trim(), s.services.cwd, s.services.env);
        if ('error' in r) return { output: r.error };
        s.pendingImages.push(r.url);
        return { output: `📎 Attached ${args.trim()} to your next prompt (${s.pendingImages.length} image${s.pendingImages.length === 1 ? '' : 's'}${r.note ? `; ${r.note}` : ''}).` };
      },
    },
    {
      name: 'paste',
      description: 'attach the image on your clipboard to the next prompt',
      category: 'info',
      surfaces: ['cli'],
      midTurn: true,
      async run(ctx) {
        if (!ctx.hooks.pasteImage) return { output: 'This surface cannot read the clipboard.' };
        const url = await ctx.hooks.pasteImage();
        if (!url) return { output: 'No image on the clipboard (this needs wl-paste, xclip or pngpaste). Save it to a file and use /image <path>.' };
        ctx.session.pendingImages.push(url);
        return { output: `📎 Attached the clipboard image to your next prompt.` };
      },
    },
  ];
}
