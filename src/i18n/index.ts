// The language of fixed messages people read (approval prompts, CLI notices, gateway command
// replies): `HERMES_LANGUAGE`, else config.yaml `display.language`, else English. Hermes's 16 locales,
// with its aliases (`french`, `fr-CA`, `日本語`, …). Catalogs are data (./locales/<code>.json, one
// section per surface); a missing key falls back to English, and test/i18n keeps them complete.
// Nothing is read until the first message is needed.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LOCALES = ['en', 'zh', 'zh-hant', 'ja', 'de', 'es', 'fr', 'tr', 'uk', 'af', 'ko', 'it', 'ga', 'pt', 'ru', 'hu'] as const;
export type Locale = (typeof LOCALES)[number];

const ALIASES: Record<string, Locale> = {
  english: 'en', 'en-us': 'en', 'en-gb': 'en',
  chinese: 'zh', mandarin: 'zh', 'simplified-chinese': 'zh', 'zh-cn': 'zh', 'zh-hans': 'zh', 'zh-sg': 'zh',
  'traditional-chinese': 'zh-hant', 'zh-tw': 'zh-hant', 'zh-hk': 'zh-hant', 'zh-mo': 'zh-hant',
  japanese: 'ja', 日本語: 'ja', jp: 'ja', 'ja-jp': 'ja',
  german: 'de', deutsch: 'de', 'de-de': 'de', 'de-at': 'de', 'de-ch': 'de',
  spanish: 'es', español: 'es', espanol: 'es', 'es-es': 'es', 'es-mx': 'es', 'es-ar': 'es',
  french: 'fr', français: 'fr', francais: 'fr', 'fr-fr': 'fr', 'fr-be': 'fr', 'fr-ca': 'fr', 'fr-ch': 'fr',
  ukrainian: 'uk', українська: 'uk', 'uk-ua': 'uk', ua: 'uk',
  turkish: 'tr', turkce: 'tr', türkçe: 'tr', 'tr-tr': 'tr',
  afrikaans: 'af', 'af-za': 'af',
  korean: 'ko', 한국어: 'ko', 'ko-kr': 'ko',
  italian: 'it', italiano: 'it', 'it-it': 'it', 'it-ch': 'it',
  irish: 'ga', gaeilge: 'ga', 'ga-ie': 'ga',
  portuguese: 'pt', português: 'pt', portugues: 'pt', 'pt-pt': 'pt', 'pt-br': 'pt', brazilian: 'pt',
  russian: 'ru', русский: 'ru', 'ru-ru': 'ru',
  hungarian: 'hu', magyar: 'hu', 'hu-hu': 'hu',
};

/** A language setting as a locale code, or null when it names none of the 16. */
export function normalizeLocale(value: unknown): Locale | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase().replace(/_/g, '-');
  if (!v) return null;
  if ((LOCALES as readonly string[]).includes(v)) return v as Locale;
  return ALIASES[v] ?? null;
}

let current: Locale = 'en';
const catalogs = new Map<Locale, Record<string, unknown>>();

/** The locale for this process from the environment and config (unknown values: English). */
export function localeFrom(config: unknown, env: NodeJS.ProcessEnv = process.env): Locale {
  const display = (config as { display?: { language?: unknown } } | undefined)?.display;
  return normalizeLocale(env.HERMES_LANGUAGE) ?? normalizeLocale(display?.language) ?? 'en';
}

export function setLocale(locale: Locale): void {
  current = locale;
}

export function getLocale(): Locale {
  return current;
}

// The package's src/i18n/locales, found from this module (a source file, or a chunk under dist/).
// i18n sits below state/ (state/config.ts names the locales), so it finds the folder itself.
let localesDir: string | undefined;
function locales(): string {
  if (localesDir) return localesDir;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'src', 'i18n', 'locales');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return (localesDir = candidate);
    if (dirname(dir) === dir) throw new Error('cannot locate the hermes package root (src/i18n/locales)');
  }
}

export function catalogPath(locale: Locale): string {
  return join(locales(), `${locale}.json`);
}

export function catalog(locale: Locale): Record<string, unknown> {
  let c = catalogs.get(locale);
  if (!c) {
    try {
      c = JSON.parse(readFileSync(catalogPath(locale), 'utf8')) as Record<string, unknown>;
    } catch {
      c = {};
    }
    catalogs.set(locale, c);
  }
  return c;
}

function lookup(c: Record<string, unknown>, key: string): string | undefined {
  let v: unknown = c;
  for (const part of key.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return typeof v === 'string' ? v : undefined;
}

/**
 * An error's message in the current locale: errors that carry a catalog key (`i18n: {key, vars}`,
 * e.g. provider resolution's) are translated; English and everything else keep `message`.
 */
export function localizedError(e: unknown): string {
  const err = e as { message?: unknown; i18n?: { key?: unknown; vars?: Record<string, string> } } | null;
  const message = typeof err?.message === 'string' ? err.message : String(e);
  if (current === 'en' || typeof err?.i18n?.key !== 'string') return message;
  return t(err.i18n.key, err.i18n.vars ?? {});
}

/** The message `key` in the current locale (English when missing), `{name}` placeholders filled. */
export function t(key: string, vars: Record<string, string | number> = {}, locale: Locale = current): string {
  const text = lookup(catalog(locale), key) ?? lookup(catalog('en'), key) ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
