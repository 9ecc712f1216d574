// A small, valid PDF made in the test (no fixture file): pages of Helvetica text and a title.
export function makePdf(pages: string[], title = ''): Buffer {
  const esc = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const objs: string[] = [];
  const n = pages.length;
  // 1 catalog, 2 pages, then page i: 3+2i (page), 4+2i (content); font and info last.
  const font = 3 + 2 * n;
  const info = font + 1;
  objs.push('<< /Type /Catalog /Pages 2 0 R >>');
  objs.push(`<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + 2 * i} 0 R`).join(' ')}] /Count ${n} >>`);
  for (const [i, text] of pages.entries()) {
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + 2 * i} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`);
    const lines = text.split('\n').map((l, j) => `BT /F1 14 Tf 72 ${720 - 20 * j} Td (${esc(l)}) Tj ET`).join('\n');
    objs.push(`<< /Length ${Buffer.byteLength(lines)} >>\nstream\n${lines}\nendstream`);
  }
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  objs.push(`<< /Title (${esc(title)}) /Producer (hermes tests) >>`);
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (const [i, o] of objs.entries()) {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
