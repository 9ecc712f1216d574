// Answers to requests typed on the terminal (used by one-shot runs that have a TTY).
import { t } from '../i18n/index.ts';
import { createInterface } from 'node:readline/promises';
import type { AgentRequest, ApprovalChoice } from '../agent/types.ts';

export async function askOnTty(req: AgentRequest): Promise<unknown> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    if (req.kind === 'approval') {
      process.stderr.write(`\n⚠️  ${t('approval.header')} (${req.description}):\n    ${req.command}\n`);
      const labels = (['once', 'session', 'always', 'deny'] as const).map((c) => t(`approval.${c}`)).join(' | ');
      const a = (await rl.question(`${labels}  ${t('approval.tty_choice')}`)).trim().toLowerCase();
      const map: Record<string, ApprovalChoice> = { o: 'once', once: 'once', s: 'session', session: 'session', a: 'always', always: 'always' };
      return map[a] ?? 'deny';
    }
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
