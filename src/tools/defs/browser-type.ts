// browser_type: clear an input and type text into it, by ref.
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    ref: z.string().min(1).describe("The element reference from the snapshot (e.g., '@e3')"),
    text: z.string().describe('The text to type into the field'),
  });

export default pageTool({
  name: 'browser_type',
  emoji: '⌨️',
  description:
    'Type text into an input field identified by its ref ID. Clears the field first, then types the new text. Requires browser_navigate and browser_snapshot to be called first.',
  schema,
  async run(a, ctx, { c, b, page }) {
    const { redactSecrets } = await import('../../policy/redact.ts');
    const ref = a.ref.startsWith('@') ? a.ref : `@${a.ref}`;
    const el = await c.byRef(page, a.ref);
    if (typeof el === 'string') return c.failed(el);
    try {
      await el.fill(a.text);
    } catch (e) {
      return c.actionError('type into', ref, e);
    }
    // What was typed may be a password or a key: it reaches the page, not the transcript.
    return c.done({ typed: redactSecrets(a.text), element: ref });
  },
});
