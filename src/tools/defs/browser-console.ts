// browser_console: the page's console messages and uncaught errors, or — with `expression` — the
// value of a JavaScript expression evaluated in the page.
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    clear: z.boolean().optional().default(false).describe('If true, clear the message buffers after reading'),
    expression: z
      .string()
      .optional()
      .describe(
        "JavaScript expression to evaluate in the page context. Runs in the browser like the DevTools console, with full access to DOM, window, document. Return values are serialized to JSON. Example: 'document.title' or 'document.querySelectorAll(\"a\").length'",
      ),
  });

/** Hermes reports the result's Python type name. */
function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return Array.isArray(v) ? 'list' : 'dict';
}

export default pageTool({
  name: 'browser_console',
  emoji: '🖥️',
  description:
    "Get browser console output and JavaScript errors from the current page. Returns console.log/warn/error/info messages and uncaught JS exceptions. Use this to detect silent JavaScript errors, failed API calls, and application warnings. Requires browser_navigate to be called first. When 'expression' is provided, evaluates JavaScript in the page context and returns the result — use this for DOM inspection, reading page state, or extracting data programmatically.",
  schema,
  async run(a, ctx, { c, b, page }) {
        if (a.expression !== undefined) {
      let value: unknown;
      try {
        value = await page.evaluate(a.expression);
      } catch (e) {
        const msg = (e as Error).message.split('\n')[0];
        if (/circular|reference chain|could not be cloned|serializ/i.test(msg))
          return c.failed('The expression returned a DOM node, window or other value that cannot be serialized. Return a primitive (e.g. .innerText, .href, .value) or use JSON.stringify().');
        return c.failed(msg.replace(/^page\.evaluate: /, ''));
      }
      if (typeof value === 'string') {
        try {
          value = JSON.parse(value);
        } catch {
          /* a plain string */
        }
      }
      return c.done({ result: value ?? null, result_type: typeName(value) });
    }
    const messages = b.console.map((m) => ({ type: m.type, text: m.text, source: 'console' }));
    const errors = b.errors.map((e) => ({ message: e.message, source: 'exception' }));
    if (a.clear) {
      b.console.length = 0;
      b.errors.length = 0;
    }
    return c.done({ console_messages: messages, js_errors: errors, total_messages: messages.length, total_errors: errors.length });
  },
});
