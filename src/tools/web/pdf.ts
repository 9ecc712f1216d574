// PDF → text for web_extract, with unpdf (Mozilla's PDF.js packaged for servers; pure JavaScript),
// loaded on the first PDF. Pages are kept apart so the model can cite them.

export interface PdfText {
  title: string;
  content: string;
  pages: number;
}

/** Whether a response is a PDF: its content type, or the `%PDF-` signature a mislabelled one still has. */
export function isPdf(contentType: string, body: Uint8Array): boolean {
  if (contentType.toLowerCase().includes('pdf')) return true;
  return body.length > 4 && body[0] === 0x25 && body[1] === 0x50 && body[2] === 0x44 && body[3] === 0x46 && body[4] === 0x2d;
}

/** `markEveryPage`: a `--- Page N ---` line before every page, even a single one (read_file). */
export async function pdfToText(data: Uint8Array, opts: { markEveryPage?: boolean } = {}): Promise<PdfText> {
  const { getDocumentProxy, extractText, getMeta } = await import('unpdf');
  let pdf;
  try {
    // verbosity 0: PDF.js would print its warnings to the console, into the REPL or a one-shot answer.
    pdf = await getDocumentProxy(new Uint8Array(data), { verbosity: 0 });
  } catch (e) {
    const m = (e as Error).message || String(e);
    throw new Error(/password/i.test(m) ? 'The PDF is encrypted with a password; its text cannot be read.' : `The PDF could not be parsed (${m}).`);
  }
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const pages = (Array.isArray(text) ? text : [text]).map((t) => t.replace(/[ \t]+\n/g, '\n').trim());
    let title = '';
    try {
      const meta = await getMeta(pdf);
      const t = (meta.info as { Title?: unknown } | undefined)?.Title;
      if (typeof t === 'string') title = t.trim();
    } catch {
      /* no metadata */
    }
    const content = pages.length > 1 || opts.markEveryPage ? pages.map((p, i) => `--- Page ${i + 1} ---\n${p}`).join('\n\n') : (pages[0] ?? '');
    return { title, content, pages: totalPages };
  } finally {
    void (pdf as unknown as { destroy?: () => Promise<void> }).destroy?.()?.catch(() => undefined);
  }
}
