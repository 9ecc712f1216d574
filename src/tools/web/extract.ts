// HTML → clean Markdown: linkedom parses, Readability finds the article, Turndown writes Markdown.
// All three load on first use.

export interface Extracted {
  title: string;
  content: string;
}

let libs: Promise<{ parseHTML: typeof import('linkedom').parseHTML; Readability: typeof import('@mozilla/readability').Readability; Turndown: typeof import('turndown') }> | undefined;

function load() {
  libs ??= Promise.all([import('linkedom'), import('@mozilla/readability'), import('turndown')]).then(([l, r, t]) => ({
    parseHTML: l.parseHTML,
    Readability: r.Readability,
    Turndown: (t as unknown as { default: typeof import('turndown') }).default ?? (t as unknown as typeof import('turndown')),
  }));
  return libs;
}

export async function htmlToMarkdown(html: string, pageUrl: string): Promise<Extracted> {
  const { parseHTML, Readability, Turndown } = await load();
  const { document } = parseHTML(html);
  // Absolute links and images, so the Markdown works out of context.
  for (const el of document.querySelectorAll('a[href], img[src]')) {
    const attr = el.tagName === 'A' ? 'href' : 'src';
    const v = el.getAttribute(attr);
    if (!v) continue;
    try {
      el.setAttribute(attr, new URL(v, pageUrl).toString());
    } catch {
      /* leave odd URLs alone */
    }
  }
  for (const el of document.querySelectorAll('script, style, noscript, template, svg, iframe')) el.remove();
  const title = (document.querySelector('title')?.textContent ?? '').trim();
  let article: { title?: string | null; content?: string | null } | null = null;
  try {
    article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
  } catch {
    article = null;
  }
  const td = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  const source = article?.content || document.body?.innerHTML || html;
  const md = td
    .turndown(source)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: (article?.title || title || '').trim(), content: md };
}

/** Caps page text, saying how much was cut. */
export function capChars(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  return { text: `${text.slice(0, limit)}\n\n[… truncated: ${(text.length - limit).toLocaleString('en-US')} more characters. Extract a narrower page or use the terminal to fetch it to a file.]`, truncated: true };
}
