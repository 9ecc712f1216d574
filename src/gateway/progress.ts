// Tool progress in the chat (display.tool_progress).
import { redactSecrets } from '../policy/redact.ts';
import { describeToolCall } from '../session/describe.ts';
import type { PlatformAdapter, SessionSource } from './types.ts';

/**
 * Tool progress in the chat, per display.tool_progress: `off`, `new` (only when the tool
 * changes), `all` (every call), `verbose` (with arguments and a result preview). Where the platform
 * can edit messages the lines accumulate in one message; elsewhere each is its own message.
 */
export class ProgressReporter {
  private lines: string[] = [];
  private messageId: string | undefined;
  private lastTool = '';
  private chain: Promise<void> = Promise.resolve();
  private readonly adapter: PlatformAdapter;
  private readonly src: SessionSource;
  private readonly mode: string;
  private readonly log: (l: string) => void;

  constructor(adapter: PlatformAdapter, src: SessionSource, mode: string, log: (l: string) => void) {
    this.adapter = adapter;
    this.src = src;
    this.mode = mode;
    this.log = log;
  }

  start(name: string, args: Record<string, unknown>, emoji?: string): void {
    if (this.mode === 'off') return;
    if (this.mode === 'new' && name === this.lastTool) return;
    this.lastTool = name;
    const d = describeToolCall(name, args, { emoji, argMax: this.mode === 'verbose' ? 200 : 60 });
    let line = `${d.icon} ${name}${d.arg ? `: ${d.arg}` : '…'}`;
    if (this.mode === 'verbose') {
      const a = JSON.stringify(args);
      line += `\n   args: ${a.length > 300 ? a.slice(0, 300) + '…' : a}`;
    }
    this.push(redactSecrets(line));
  }

  end(name: string, content: string, isError: boolean): void {
    if (this.mode !== 'verbose') return;
    const flat = content.replace(/\s+/g, ' ');
    this.push(redactSecrets(`   ${isError ? '✗' : '↳'} ${name}: ${flat.length > 200 ? flat.slice(0, 200) + '…' : flat}`));
  }

  private push(line: string): void {
    this.lines.push(line);
    this.chain = this.chain.then(() => this.render(line)).catch((e) => this.log(`gateway: progress message failed: ${(e as Error).message}`));
  }

  private async render(line: string): Promise<void> {
    const max = Math.min(this.adapter.maxMessageLength, 3500);
    if (this.adapter.edit && this.messageId) {
      const text = this.lines.join('\n');
      if (text.length <= max) {
        const r = await this.adapter.edit(this.src.chatId, this.messageId, text);
        if (r.ok) return;
      }
      this.lines = [line];
    }
    const r = await this.adapter.send(this.src.chatId, line, { threadId: this.src.threadId });
    this.messageId = r.ok ? r.messageId : undefined;
    if (!this.adapter.edit) this.lines = [];
  }

  flush(): Promise<void> {
    return this.chain;
  }
}
