// clarify: ask the user a question (optionally with choices) and wait for the answer.
import type { z } from 'zod';
import type { Zod } from '../zod.ts';
import { defineTool } from '../registry.ts';
import { fail, ok } from '../result.ts';

export default defineTool({
  name: 'clarify',
  toolset: 'clarify',
  emoji: '❓',
  description:
    'Ask the user when you cannot go on without their decision, with up to 4 choices. Not for what you can find out.',
  schema: (z) =>
    z.object({
    question: z.string().min(1),
    choices: z.array(z.string().min(1)).max(4).optional(),
  }),
  async handler(a, ctx) {
    const choices = a.choices?.length ? a.choices : undefined;
    const { answer, source } = await ctx.ask({ kind: 'clarify', question: a.question, choices });
    if (source === 'no_responder')
      return fail('Nobody can answer questions in this session (it runs unattended). Choose a sensible default, say what you assumed, and continue.');
    if (source === 'interrupted') return fail('The question was interrupted before the user answered.');
    if (source === 'timeout') {
      const mins = Math.round(((ctx.config.agent as { clarify_timeout?: number }).clarify_timeout ?? 3600) / 60);
      return ok({ question: a.question, choices_offered: choices ?? [], user_response: null, note: `[user did not respond within ${mins}m] Proceed with your best judgement and say what you assumed.` });
    }
    return ok({ question: a.question, choices_offered: choices ?? [], user_response: typeof answer === 'string' ? answer : String(answer ?? '') });
  },
});
