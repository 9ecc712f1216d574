// Approvals and clarify questions in chat: the request is shown (buttons where the platform has
// them, else numbered text), answered by a button press, /approve · /deny, yes/no or a number,
// and the message is edited to show the outcome.
import { t } from '../i18n/index.ts';
import type { AgentRequest } from '../agent/types.ts';
import { redactSecrets } from '../policy/redact.ts';
import { authorize } from './auth.ts';
import type { Lane, OpenRequest, Warm } from './lanes.ts';
import type { GatewayRunner } from './runner.ts';
import type { InboundAction, PlatformAdapter } from './types.ts';

/** The approval buttons' labels in the person's language. */
const approvalLabel = (c: string): string => (['once', 'session', 'always', 'deny'].includes(c) ? t(`gateway.button_${c}`) : c);

export class ChatRequests {
  private readonly shortIds = new Map<string, { key: string; id: string }>();
  private readonly r: GatewayRunner;

  constructor(r: GatewayRunner) {
    this.r = r;
  }

  async open(lane: Lane, warm: Warm, id: string, req: AgentRequest, meta?: Record<string, unknown>): Promise<void> {
    const src = lane.source;
    if (req.kind === 'secret') {
      warm.session.answer(id, null);
      await this.r.reply(lane.adapter, src, `🔒 The agent needs ${req.name}. Secrets are not collected in chat: add ${req.name}=… to ~/.hermes/.env on the gateway host, then ask again.`);
      return;
    }
    if (!this.r.isAccepting) {
      // Asked while the gateway stops: nobody will answer it.
      warm.session.cancelRequests('shutdown');
      return;
    }
    const short = id.replace(/-/g, '').slice(0, 8);
    const open: OpenRequest = { id, short, kind: req.kind, request: req };
    lane.open.push(open);
    this.shortIds.set(short, { key: lane.key, id });
    if (req.kind === 'approval') {
      const text = `${t('gateway.approval_needed')}\n\n\`${req.command.length > 600 ? req.command.slice(0, 600) + '…' : req.command}\`\n\n${t('gateway.approval_why', { description: req.description })}\n\n${t('gateway.approval_reply')}`;
      const buttons = [
        req.choices.filter((c) => c !== 'deny').map((c) => ({ label: approvalLabel(c), data: `hx:${short}:${c}` })),
        [{ label: approvalLabel('deny'), data: `hx:${short}:deny` }],
      ];
      open.messageId = await this.r.reply(lane.adapter, src, redactSecrets(text), { buttons, meta });
    } else {
      const choices = req.choices ?? [];
      const text = `❓ ${req.question}${choices.length ? '\n\n' + choices.map((c, i) => `${i + 1}. ${c}`).join('\n') + '\n\nReply with a number or your own answer.' : ''}`;
      const buttons = choices.length ? choices.map((c, i) => [{ label: c.slice(0, 60), data: `hx:${short}:c${i}` }]) : undefined;
      open.messageId = await this.r.reply(lane.adapter, src, text, { buttons, meta });
    }
  }

  async close(lane: Lane, id: string, answer: unknown, source: string): Promise<void> {
    const i = lane.open.findIndex((r) => r.id === id);
    if (i < 0) return;
    const [r] = lane.open.splice(i, 1);
    this.shortIds.delete(r.short);
    if (!r.messageId || !lane.adapter.edit || !lane.adapter.supportsButtons) return;
    let status: string;
    if (r.kind === 'approval') status = answer === 'deny' ? t(source === 'timeout' ? 'gateway.timed_out_denied' : source === 'interrupted' ? 'gateway.interrupted' : 'gateway.denied') : t('gateway.approved_choice', { choice: String(answer) });
    else status = source === 'person' ? t('gateway.answered', { answer: String(answer).slice(0, 200) }) : t(source === 'timeout' ? 'gateway.no_answer_in_time' : 'gateway.interrupted');
    const head = r.kind === 'approval' ? `Approval: \`${(r.request as { command: string }).command.slice(0, 300)}\`` : `❓ ${(r.request as { question: string }).question}`;
    await lane.adapter.edit(lane.source.chatId, r.messageId, redactSecrets(`${head}\n\n${status}`)).catch(() => undefined);
  }

  /**
   * The gateway is stopping: every open approval is answered as denied (and clarify questions with
   * no answer), so no turn waits for a person who can no longer reply. The turns record the denial
   * like any other and end. Returns how many requests were open.
   */
  denyAllForShutdown(): number {
    let n = 0;
    for (const lane of this.r.lanes.values()) {
      if (!lane.open.length) continue;
      n += this.r.cache.peek(lane.key)?.session.cancelRequests('shutdown') ?? 0;
    }
    return n;
  }

  /** Answers the oldest open approval of a conversation (from /approve, /deny or a button). */
  answerApproval(key: string, choice: 'once' | 'session' | 'always' | 'deny'): boolean {
    const lane = this.r.lanes.get(key);
    const r = lane?.open.find((x) => x.kind === 'approval');
    const warm = this.r.cache.peek(key);
    if (!r || !warm) return false;
    return warm.session.answer(r.id, choice);
  }

  onAction(adapter: PlatformAdapter, act: InboundAction): void {
    void this.handleAction(adapter, act).catch((e) => this.r.log(`gateway: button press failed: ${(e as Error).message}`));
  }

  private async handleAction(adapter: PlatformAdapter, act: InboundAction): Promise<void> {
    const m = /^hx:([0-9a-f]{8}):(once|session|always|deny|c\d+)$/.exec(act.data);
    if (!m) {
      await act.ack?.();
      return;
    }
    if (!authorize(act.source, this.r.env, this.r.pairing).ok) {
      await act.ack?.(t('gateway.not_allowed_to_answer'));
      return;
    }
    const ref = this.shortIds.get(m[1]);
    if (!ref || ref.key !== this.r.sessionKey(act.source)) {
      await act.ack?.(t(ref ? 'gateway.only_asker' : 'gateway.no_longer_open'));
      return;
    }
    const lane = this.r.lanes.get(ref.key);
    const r = lane?.open.find((x) => x.id === ref.id);
    const warm = this.r.cache.peek(ref.key);
    if (!r || !warm) {
      await act.ack?.(t('gateway.no_longer_open'));
      return;
    }
    let value: string = m[2];
    if (m[2].startsWith('c')) value = (r.request as { choices?: string[] }).choices?.[Number(m[2].slice(1))] ?? '';
    warm.session.answer(r.id, value);
    await act.ack?.(t(r.kind === 'approval' ? (value === 'deny' ? 'gateway.ack_denied' : 'gateway.ack_approved') : 'gateway.ack_answered'));
    void adapter;
  }

}
