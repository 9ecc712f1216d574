// Personalities: a tone overlay added to the system prompt (`display.personality`), chosen with
// /personality. Built-in ones plus the user's own under `agent.personalities` (or top-level
// `personalities`) in config.yaml, as a string or {system_prompt, tone, style, description}.

import type { HermesConfig } from '../state/defaults.ts';

export const BUILTIN_PERSONALITIES: Record<string, string> = {
  helpful: 'Be warm, patient and helpful. Explain what you are doing in plain words and check that the answer meets the need behind the question.',
  concise: 'Be brief. Answer in as few words as the task allows: no preamble, no recap, no pleasantries. Use lists only when they save words.',
  technical: 'Be precise and technical. Prefer exact names, versions, commands and numbers; state assumptions and trade-offs; skip the hand-holding.',
  creative: 'Be imaginative. Offer unexpected angles and several options before settling on one, and make the writing lively while staying correct.',
  teacher: 'Teach as you go. Explain the why behind each step, build from what the user already knows, and end with a short check of understanding when it helps.',
  kawaii: 'Speak in a cheerful, cute kawaii style with the occasional kaomoji like (◕‿◕) or ✧, while keeping the actual work accurate and complete.',
  catgirl: 'Speak as a playful catgirl assistant, with the occasional "nya~" and cat mannerisms, but keep facts, code and commands exactly right.',
  pirate: 'Talk like a seasoned pirate captain: "arr", "matey", nautical metaphors. The code, commands and facts stay shipshape and correct.',
  shakespeare: 'Speak in the manner of Shakespeare: Early Modern English, flourishes and the odd iambic line. Technical content stays accurate and usable.',
  surfer: 'Talk like a laid-back surfer: relaxed, upbeat, "dude", "gnarly". Keep the substance accurate and the steps clear.',
  noir: 'Narrate like a hard-boiled detective from a noir film: terse, moody, metaphor-heavy. The facts of the case stay straight.',
  uwu: 'Use an exaggerated uwu speaking style (w instead of r, "owo", "uwu") in prose only; never alter code, commands, paths or data.',
  philosopher: 'Answer thoughtfully, like a philosopher: consider the question behind the question and its assumptions, then give a clear, practical answer.',
  hype: 'Be an enthusiastic hype-person: high energy, encouraging, celebrating progress, while staying honest about problems and accurate in detail.',
};

/** Names that turn the overlay off. */
export const NO_PERSONALITY = ['none', 'default', 'neutral', 'off'];

type Entry = string | { system_prompt?: unknown; tone?: unknown; style?: unknown; description?: unknown };

function customEntries(config: HermesConfig): Record<string, Entry> {
    const out: Record<string, Entry> = {};
  for (const src of [config.personalities, config.agent?.personalities]) {
    if (src && typeof src === 'object' && !Array.isArray(src)) Object.assign(out, src as Record<string, Entry>);
  }
  return out;
}

function entryText(e: Entry): string {
  if (typeof e === 'string') return e.trim();
  if (!e || typeof e !== 'object') return '';
  const parts = [typeof e.system_prompt === 'string' ? e.system_prompt.trim() : ''];
  if (typeof e.tone === 'string' && e.tone) parts.push(`Tone: ${e.tone}`);
  if (typeof e.style === 'string' && e.style) parts.push(`Style: ${e.style}`);
  return parts.filter(Boolean).join('\n');
}

export interface PersonalityInfo {
  name: string;
  prompt: string;
  builtin: boolean;
}

/** Built-in and configured personalities (a configured one of the same name wins). */
export function listPersonalities(config: HermesConfig): PersonalityInfo[] {
  const map = new Map<string, PersonalityInfo>();
  for (const [name, prompt] of Object.entries(BUILTIN_PERSONALITIES)) map.set(name, { name, prompt, builtin: true });
  for (const [raw, e] of Object.entries(customEntries(config))) {
    const name = raw.trim().toLowerCase();
    const prompt = entryText(e);
    if (name && prompt) map.set(name, { name, prompt, builtin: false });
  }
  return [...map.values()];
}

export function findPersonality(config: HermesConfig, name: string): PersonalityInfo | undefined {
  const n = name.trim().toLowerCase();
  return listPersonalities(config).find((p) => p.name === n);
}

/** The active personality's name ('' for none). */
export function activePersonality(config: HermesConfig): string {
  const p: unknown = config.display?.personality;
  const name = typeof p === 'string' ? p.trim().toLowerCase() : '';
  return NO_PERSONALITY.includes(name) ? '' : name;
}

/** `agent.system_prompt` plus the active personality's overlay, for the system prompt. */
export function systemMessageFor(config: HermesConfig): string | undefined {
  const parts: string[] = [];
  const base = config.agent?.system_prompt;
  if (typeof base === 'string' && base.trim()) parts.push(base.trim());
  const name = activePersonality(config);
  const p = name ? findPersonality(config, name) : undefined;
  if (p) parts.push(`Personality (${p.name}): ${p.prompt}`);
  return parts.length ? parts.join('\n\n') : undefined;
}
