// The session's browser: one per session (ToolSession), opened on the first browser call from the
// configured backend, closed when the session ends or after `browser.inactivity_timeout` seconds
// without a browser call. It keeps what the tools report: console messages and page errors, refused
// requests, downloads (saved into the workspace).
import { existsSync, mkdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { BrowserContext, ConsoleMessage, Download, Page, Request, Route } from 'playwright-core';
import { defineSlot } from '../../state/slots.ts';
import { onSessionClose } from '../cleanup.ts';
import type { ToolSession } from '../types.ts';
import { openBrowserUse } from './backends/browser-use.ts';
import { openBrowserbase } from './backends/browserbase.ts';
import { openCdp } from './backends/cdp.ts';
import { openLocal } from './backends/local.ts';
import type { OpenBrowser } from './backends/types.ts';
import { browserSettings, browserUnavailable, type BrowserSettings } from './config.ts';
import type { BlockRecord } from './guard-proxy.ts';
import { urlGuard, type UrlBlock, type UrlGuard } from './url-policy.ts';

/** The session's browser. */
export const browserSlot = defineSlot<BrowserSession>('browser_session');
/** Tests swap name resolution and the address rules through this slot. */
export const browserUrlSeamsSlot = defineSlot<Parameters<typeof urlGuard>[1]>('browser_url_seams');
const MAX_LOG = 500;

export interface ConsoleEntry {
  type: string;
  text: string;
}

export class BrowserSession {
  readonly settings: BrowserSettings;
  readonly guard: UrlGuard;
  readonly console: ConsoleEntry[] = [];
  readonly errors: { message: string }[] = [];
  readonly downloads: string[] = [];
  /** Requests refused by route interception (remote and cloud browsers). */
  private readonly routeBlocks: BlockRecord[] = [];
  private opening: Promise<OpenBrowser> | null = null;
  private open: OpenBrowser | null = null;
  private current: Page | null = null;
  private idle: NodeJS.Timeout | null = null;
  private unregister: (() => void) | null = null;
  firstNavigation = true;
  closed = false;

  private readonly services: ToolSession;

  constructor(services: ToolSession) {
    this.services = services;
    this.settings = browserSettings(services);
    // Tests may swap name resolution and the address rules (`browserUrlSeamsSlot`).
    this.guard = urlGuard(services, services.slots.peek(browserUrlSeamsSlot) ?? {});
  }

  get backend() {
    return this.settings.backend;
  }

  get features(): string[] {
    return this.open?.features ?? [];
  }

  /** Whether a browser is open right now. */
  get isOpen(): boolean {
    return !!this.open;
  }

  /** Refusals (guard proxy or route interception) recorded since `since` (ms epoch). */
  blockedSince(since: number): BlockRecord[] {
    const all = [...(this.open?.proxy?.blocked ?? []), ...this.routeBlocks];
    return all.filter((b) => b.at >= since).sort((a, b) => a.at - b.at);
  }

  /** The page the tools act on, opening the browser first if needed. */
  async page(): Promise<Page> {
    this.touch();
    if (this.current && !this.current.isClosed()) return this.current;
    const open = await this.ensureOpen();
    const pages = open.context.pages().filter((p) => !p.isClosed());
    this.current = pages[pages.length - 1] ?? (await open.context.newPage());
    return this.current;
  }

  /** The current page when the browser is open, without opening one. */
  existingPage(): Page | null {
    this.touch();
    return this.current && !this.current.isClosed() ? this.current : null;
  }

  private async ensureOpen(): Promise<OpenBrowser> {
    if (this.open) return this.open;
    if (this.closed) this.closed = false;
    if (!this.opening) {
      this.opening = this.launch().finally(() => {
        this.opening = null;
      });
    }
    return this.opening;
  }

  private async launch(): Promise<OpenBrowser> {
    const why = browserUnavailable(this.services);
    if (why) throw new Error(`The browser is not available: ${why}.`);
    const o = { services: this.services, settings: this.settings, guard: this.guard };
    const open =
      this.settings.backend === 'cdp'
        ? await openCdp(o)
        : this.settings.backend === 'browserbase'
          ? await openBrowserbase(o)
          : this.settings.backend === 'browser-use'
            ? await openBrowserUse(o)
            : await openLocal(o);
    const ctx = open.context;
    ctx.setDefaultTimeout(this.settings.actionTimeoutMs);
    ctx.setDefaultNavigationTimeout(Math.max(this.settings.actionTimeoutMs, 60_000));
    if (!open.proxy) await ctx.route('**/*', (route, req) => this.screen(route, req));
    for (const p of ctx.pages()) this.watch(p);
    ctx.on('page', (p) => {
      this.watch(p);
      this.current = p;
    });
    ctx.on('close', () => {
      if (this.open === open) this.reset();
    });
    this.open = open;
    this.unregister ??= onSessionClose(this.services, async () => {
      await this.close('session ended');
    });
    this.touch();
    return open;
  }

  /** Route interception for browsers the guard proxy does not sit in front of. */
  private async screen(route: Route, req: Request): Promise<void> {
    const url = req.url();
    if (/^(data|blob|about|chrome-extension):/i.test(url)) return route.continue().catch(() => undefined);
    const nav = req.isNavigationRequest();
    const b = await this.guard.check(url, { navigation: nav && req.frame() === this.current?.mainFrame() });
    if (!b) return route.continue().catch(() => undefined);
    this.routeBlocks.push({ ...b, at: Date.now() });
    if (this.routeBlocks.length > 200) this.routeBlocks.splice(0, this.routeBlocks.length - 200);
    await route.abort('blockedbyclient').catch(() => undefined);
  }

  private watch(p: Page): void {
    const push = <T>(list: T[], x: T) => {
      list.push(x);
      if (list.length > MAX_LOG) list.splice(0, list.length - MAX_LOG);
    };
    p.on('console', (m: ConsoleMessage) => push(this.console, { type: m.type() === 'warning' ? 'warn' : m.type(), text: m.text() }));
    p.on('pageerror', (e: Error) => push(this.errors, { message: e.message }));
    p.on('dialog', (d) => {
      push(this.console, { type: 'dialog', text: `${d.type()}: ${d.message()}` });
      void (d.type() === 'alert' ? d.accept() : d.dismiss()).catch(() => undefined);
    });
    p.on('download', (d: Download) => void this.saveDownload(d));
    p.on('close', () => {
      if (this.current === p) this.current = null;
    });
  }

  /** Downloads land in the workspace (`<cwd>/downloads/`), under their own base name, never elsewhere. */
  private async saveDownload(d: Download): Promise<void> {
    try {
      const dir = join(this.services.cwd, 'downloads');
      mkdirSync(dir, { recursive: true });
      const name = basename(d.suggestedFilename()).replace(/^\.+/, '').replace(/[\u0000-\u001f/\\]/g, '_') || 'download';
      let path = join(dir, name);
      for (let i = 1; existsSync(path); i++) path = join(dir, `${basename(name, extname(name))} (${i})${extname(name)}`);
      await d.saveAs(path);
      this.downloads.push(path);
    } catch (e) {
      this.console.push({ type: 'error', text: `download failed: ${(e as Error).message}` });
    }
  }

  /** Downloads finished since the last call (each reported once). */
  takeDownloads(): string[] {
    return this.downloads.splice(0);
  }

  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => void this.close('idle'), this.settings.inactivitySecs * 1000);
    this.idle.unref?.();
  }

  private reset(): void {
    this.open = null;
    this.current = null;
    this.firstNavigation = true;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }

  async close(_reason = 'closed'): Promise<boolean> {
    const pending = this.opening;
    const open = this.open ?? (pending ? await pending.catch(() => null) : null);
    this.reset();
    this.closed = true;
    if (!open) return false;
    await open.close().catch(() => undefined);
    return true;
  }

  get context(): BrowserContext | null {
    return this.open?.context ?? null;
  }
}

/** The session's browser (created lazily; nothing launches until a tool asks for a page). */
export function browserSession(s: ToolSession): BrowserSession {
  let b = s.slots.peek(browserSlot);
  if (!b) {
    b = new BrowserSession(s);
    s.slots.set(browserSlot, b);
  }
  return b;
}

/** The session's browser if one was ever created. */
export function existingBrowserSession(s: ToolSession): BrowserSession | undefined {
  return s.slots.peek(browserSlot);
}

export type { UrlBlock };
