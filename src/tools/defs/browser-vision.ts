// browser_vision: a screenshot of the current page, saved under HERMES_HOME (shareable with
// MEDIA:<path>), analysed by the auxiliary vision model. `annotate` labels interactive elements with
// their ref numbers first.
import type { Zod } from '../zod.ts';
import { pageTool } from '../browser/define.ts';

const schema = (z: Zod) =>
  z.object({
    question: z.string().min(1).describe("What you want to know about the page visually. Be specific about what you're looking for."),
    annotate: z.boolean().optional().default(false).describe('If true, overlay numbered [N] labels on interactive elements. Each [N] maps to ref @eN for subsequent browser commands.'),
  });

const PROMPT = (q: string) =>
  `You are analyzing a screenshot of a web browser.\n\nUser's question: ${q}\n\nProvide a detailed and helpful answer based on what you see in the screenshot. If there are interactive elements, describe them. If there are verification challenges or CAPTCHAs, describe what type they are and what action might be needed. Focus on answering the user's specific question.`;

export default pageTool({
  name: 'browser_vision',
  emoji: '👁️',
  description:
    "Take a screenshot of the current page and inspect it visually. Use this when you need to understand what the page looks like — CAPTCHAs, visual verification challenges, complex layouts, or anything the text snapshot misses. Returns the vision model's analysis and a screenshot_path you can share with the user by including MEDIA:<screenshot_path> in your response. Requires browser_navigate to be called first.",
  schema,
  async run(a, ctx, { c, b, page }) {
    const { hermesDir } = await import('../browser/snapshot.ts');
    const { randomUUID } = await import('node:crypto');
    const { join } = await import('node:path');
    const path = join(hermesDir(ctx.home, 'cache/screenshots', 'browser_screenshots'), `browser_screenshot_${randomUUID().replace(/-/g, '')}.png`);
    let annotations: { ref: string; label: string; role: string; name: string }[] = [];
    try {
      if (a.annotate) annotations = await annotatePage(page);
      await page.screenshot({ path, fullPage: true });
    } catch (e) {
      return c.failed(`Failed to take a screenshot (${b.backend} browser): ${(e as Error).message.split('\n')[0]}`);
    } finally {
      if (a.annotate) await page.evaluate(() => document.getElementById('__hermes_annotations')?.remove()).catch(() => undefined);
    }
    const extra = annotations.length ? { annotations } : {};
    const aux = ctx.auxiliary?.('vision');
    if (!aux) return c.done({ analysis: 'No vision model is configured (auxiliary.vision), so the screenshot was not analysed. Share it with MEDIA:<screenshot_path>.', screenshot_path: path, ...extra });
    const { readFileSync } = await import('node:fs');
    const { askVision } = await import('../impl/vision.ts');
    const { fitForVision } = await import('../../media/image-fit.ts');
    try {
      const img = await fitForVision(readFileSync(path), 'image/png', ctx.env, ctx.signal);
      const r = await askVision(aux, img.bytes, img.mime, PROMPT(a.question), ctx.signal);
      if ('error' in r) throw new Error(r.error);
      return c.done({ analysis: r.text || 'Vision analysis returned no content.', screenshot_path: path, ...extra });
    } catch (e) {
      return c.failed(`Error during vision analysis: ${(e as Error).message}`, { screenshot_path: path, note: 'Screenshot was captured but vision analysis failed. You can still share it via MEDIA:<path>.' });
    }
  },
});

/** Draws `[N]` labels over the elements that have refs (from a snapshot with boxes); returns them. */
async function annotatePage(page: import('playwright-core').Page): Promise<{ ref: string; label: string; role: string; name: string }[]> {
  const snap = await page.ariaSnapshot({ mode: 'ai', boxes: true });
  const items: { ref: string; label: string; role: string; name: string; box: number[] }[] = [];
  for (const line of snap.split('\n')) {
    const ref = /\[ref=([\w-]+)\]/.exec(line)?.[1];
    const box = /\[box=(-?[\d.]+),(-?[\d.]+),([\d.]+),([\d.]+)\]/.exec(line);
    if (!ref || !box) continue;
    const role = /^\s*- ([\w-]+)/.exec(line)?.[1] ?? '';
    if (!/^(link|button|textbox|checkbox|radio|combobox|option|menuitem|tab|switch|searchbox|slider|spinbutton)$/.test(role)) continue;
    const name = /"([^"]*)"/.exec(line)?.[1] ?? '';
    items.push({ ref, label: ref.replace(/^f\d+/, '').replace(/^e/, ''), role, name, box: box.slice(1).map(Number) });
  }
  await page.evaluate((list) => {
    const root = document.createElement('div');
    root.id = '__hermes_annotations';
    root.style.cssText = 'position:absolute;left:0;top:0;pointer-events:none;z-index:2147483647';
    for (const it of list) {
      const tag = document.createElement('div');
      tag.textContent = `[${it.label}]`;
      tag.style.cssText = `position:absolute;left:${it.box[0] + window.scrollX}px;top:${Math.max(0, it.box[1] + window.scrollY - 14)}px;background:#ffeb3b;color:#000;font:bold 11px monospace;padding:0 2px;border:1px solid #000`;
      const frame = document.createElement('div');
      frame.style.cssText = `position:absolute;left:${it.box[0] + window.scrollX}px;top:${it.box[1] + window.scrollY}px;width:${it.box[2]}px;height:${it.box[3]}px;outline:2px solid #ff5722`;
      root.append(frame, tag);
    }
    document.body.append(root);
  }, items);
  return items.map(({ ref, label, role, name }) => ({ ref: `@${ref}`, label, role, name }));
}
