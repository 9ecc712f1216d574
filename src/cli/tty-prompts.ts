// Answers to requests typed on the terminal (used by one-shot runs that have a TTY).
import { t } from '../i18n/index.ts';
import { createInterface } from 'node:readline/promises';
import type { AgentRequest, ApprovalChoice } from '../agent/types.ts';

const APPROVAL_KEYS: Record<string, ApprovalChoice> = { o: 'once', s: 'session', a: 'always', d: 'deny' };
const APPROVAL_SAID: Record<ApprovalChoice, string> = { once: 'approved once', session: 'approved for this session', always: 'approved always (saved to command_allowlist)', deny: 'denied' };

/**
 * One key press, as the REPL takes it: o, s, a or d; Enter, Esc or Ctrl+C deny. Other keys are ignored.
 * The terminal is raw before the prompt shows, so a key pressed as soon as it appears is not echoed.
 */
function approvalKey(prompt: string): Promise<ApprovalChoice> {
  const stdin = process.stdin;
  const wasRaw = stdin.isRaw;
  stdin.setRawMode(true);
  stdin.resume();
  process.stderr.write(prompt);
  return new Promise((resolve) => {
    const onData = (buf: Buffer) => {
      const text = buf.toString('utf8');
      const choice = text === '\r' || text === '\n' || text === '\x1b' || text === '\x03' ? 'deny' : APPROVAL_KEYS[text.toLowerCase()[0] ?? ''];
      if (!choice) return;
      stdin.off('data', onData);
      stdin.setRawMode(wasRaw);
      stdin.pause();
      resolve(choice);
    };
    stdin.on('data', onData);
  });
}

export async function askOnTty(req: AgentRequest): Promise<unknown> {
  if (req.kind === 'approval') {
    const choices = (['once', 'session', 'always', 'deny'] as const).map((c) => t(`approval.${c}`)).join('  ');
    const choice = await approvalKey(`\n⚠️  ${t('approval.header')} (${req.description}):\n    ${req.command}\n${choices} · ${t('approval.enter_denies')}: `);
    process.stderr.write(`${APPROVAL_SAID[choice]}\n`);
    return choice;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    if (req.kind === 'clarify') {
      process.stderr.write(`\n❓ ${req.question}\n`);
      req.choices?.forEach((c, i) => process.stderr.write(`   ${i + 1}. ${c}\n`));
      const a = (await rl.question('> ')).trim();
      const n = Number(a);
      return req.choices && Number.isInteger(n) && n >= 1 && n <= req.choices.length ? req.choices[n - 1] : a;
    }
    // secret: read without echo
    process.stderr.write(`${req.prompt}: `);
    const out = rl as unknown as { _writeToOutput?: (s: string) => void };
    out._writeToOutput = () => {};
    const v = await rl.question('');
    process.stderr.write('\n');
    return v || null;
  } finally {
    rl.close();
  }
}

/** One line typed on the terminal (stdout prompt), trimmed. */
export async function askLine(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}
