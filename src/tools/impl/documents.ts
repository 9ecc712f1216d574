// Documents as text for read_file, loaded on the first document read: PDF through unpdf (the
// dependency web_extract already uses), and Office Open XML (docx, xlsx, pptx) parsed here from
// their ZIP parts with a small XML tokenizer. Pages, sheets and slides are kept apart by marker lines
// (`--- Page 2 ---`, `--- Sheet 1: Budget ---`, `--- Slide 3 ---`) so offset/limit can page through
// them and the model can cite where something is.
import { ZipError, ZipReader } from './zip.ts';

export type DocumentKind = 'pdf' | 'docx' | 'xlsx' | 'pptx';

export interface DocumentText {
  kind: DocumentKind;
  text: string;
  /** Pages (pdf, docx with page breaks), sheets (xlsx) or slides (pptx). */
  units: number;
  unitName: 'pages' | 'sheets' | 'slides';
}

export class DocumentError extends Error {}

const OFFICE_EXT = /\.(docx|docm|dotx|xlsx|xlsm|xltx|pptx|pptm|potx)$/i;
const isPdfHead = (h: Uint8Array) => h.length > 4 && h[0] === 0x25 && h[1] === 0x50 && h[2] === 0x44 && h[3] === 0x46 && h[4] === 0x2d;
const isZipHead = (h: Uint8Array) => h.length > 3 && h[0] === 0x50 && h[1] === 0x4b && h[2] === 0x03 && h[3] === 0x04;

/**
 * Whether read_file should read this file as a document: a PDF signature (or a .pdf with the signature
 * within its first KB, which PDF readers accept), or a ZIP named like an Office file.
 */
export function documentCandidate(path: string, head: Uint8Array): boolean {
  if (isPdfHead(head)) return true;
  if (isZipHead(head)) return OFFICE_EXT.test(path);
  return /\.pdf$/i.test(path) && Buffer.from(head.subarray(0, 1024)).includes('%PDF-');
}

/** The document's text with markers; throws DocumentError with a reason the person can act on. */
export async function documentText(path: string, data: Buffer): Promise<DocumentText> {
  if (!isZipHead(data)) return pdf(data);
  let zip: ZipReader;
  try {
    zip = new ZipReader(data);
  } catch (e) {
    throw new DocumentError(`it could not be opened as an Office document: ${(e as Error).message}`);
  }
  try {
    if (zip.has('word/document.xml')) return docx(zip);
    if (zip.has('xl/workbook.xml')) return xlsx(zip);
    if (zip.has('ppt/presentation.xml')) return pptx(zip);
  } catch (e) {
    if (e instanceof ZipError || e instanceof DocumentError) throw new DocumentError(`it could not be read as an Office document: ${e.message}`);
    throw e;
  }
  throw new DocumentError('it is a ZIP archive but not a Word, Excel or PowerPoint document (no word/, xl/ or ppt/ part)');
}

async function pdf(data: Buffer): Promise<DocumentText> {
  const { pdfToText } = await import('../web/pdf.ts');
  try {
    const r = await pdfToText(data, { markEveryPage: true });
    return { kind: 'pdf', text: r.content, units: r.pages, unitName: 'pages' };
  } catch (e) {
    throw new DocumentError((e as Error).message.replace(/^The PDF/, 'the PDF'));
  }
}

// ---- XML ----

interface Tag {
  close: boolean;
  self: boolean;
  name: string;
  attrs: string;
}

const TOKEN = /<(\/?)([A-Za-z_][\w.:-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>|<!\[CDATA\[([\s\S]*?)\]\]>|<[?!][^>]*>|([^<]+)/g;

/** Walks an XML document: tags and (entity-decoded) text, in order. */
function walk(xml: string, onTag: (t: Tag) => void, onText: (s: string) => void): void {
  for (const m of xml.matchAll(TOKEN)) {
    if (m[2]) onTag({ close: m[1] === '/', self: m[4] === '/', name: m[2], attrs: m[3] });
    else if (m[5] !== undefined) onText(m[5]);
    else if (m[6] !== undefined) onText(decodeEntities(m[6]));
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n <= 0x10ffff ? String.fromCodePoint(n) : all;
    }
    return ENTITIES[e] ?? all;
  });
}

function attr(attrs: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)${name.replace(/[.:]/g, '\\$&')}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(attrs);
  return m ? decodeEntities(m[2] ?? m[3]) : undefined;
}

function required(zip: ZipReader, name: string): string {
  const t = zip.text(name);
  if (t === null) throw new DocumentError(`the part ${name} is missing`);
  return t;
}

/** Relationship id → part path, resolved against the folder of the part that owns the .rels file. */
function relations(zip: ZipReader, part: string): Map<string, { target: string; type: string }> {
  const dir = part.includes('/') ? part.slice(0, part.lastIndexOf('/') + 1) : '';
  const rels = zip.text(`${dir}_rels/${part.slice(dir.length)}.rels`);
  const out = new Map<string, { target: string; type: string }>();
  if (!rels) return out;
  walk(
    rels,
    (t) => {
      if (t.close || t.name !== 'Relationship') return;
      const id = attr(t.attrs, 'Id');
      const target = attr(t.attrs, 'Target');
      if (!id || !target || attr(t.attrs, 'TargetMode') === 'External') return;
      out.set(id, { target: normalize(target.startsWith('/') ? target.slice(1) : dir + target), type: attr(t.attrs, 'Type') ?? '' });
    },
    () => undefined,
  );
  return out;
}

function normalize(p: string): string {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg && seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

const tidy = (s: string) =>
  s
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

// ---- Word ----

function docx(zip: ZipReader): DocumentText {
  const xml = required(zip, 'word/document.xml');
  // Word stores where it last broke pages (w:lastRenderedPageBreak); without those, explicit breaks.
  const rendered = xml.includes('lastRenderedPageBreak');
  const pages: string[] = [];
  let cur = '';
  let inText = 0;
  let cellDepth = 0;
  const firstCell: boolean[] = [];
  const pageBreak = () => {
    pages.push(cur);
    cur = '';
  };
  walk(
    xml,
    (t) => {
      const n = t.name;
      if (n === 'w:t' || n === 'w:delText') {
        if (n === 'w:t') inText += t.close ? -1 : t.self ? 0 : 1;
        return;
      }
      if (t.close) {
        if (n === 'w:p') cur += cellDepth ? ' ' : '\n';
        else if (n === 'w:tc') cellDepth--;
        else if (n === 'w:tr') {
          cur = `${cur.replace(/ +$/, '')}\n`;
          firstCell.pop();
        }
        return;
      }
      if (n === 'w:tab') cur += '\t';
      else if (n === 'w:br' || n === 'w:cr') {
        if (!rendered && attr(t.attrs, 'w:type') === 'page') pageBreak();
        else cur += cellDepth ? ' ' : '\n';
      } else if (n === 'w:lastRenderedPageBreak' && rendered) pageBreak();
      else if (n === 'w:tr') firstCell.push(true);
      else if (n === 'w:tc') {
        if (firstCell.length && !firstCell[firstCell.length - 1]) cur = `${cur.replace(/ +$/, '')} | `;
        if (firstCell.length) firstCell[firstCell.length - 1] = false;
        cellDepth++;
      }
    },
    (s) => {
      if (inText > 0) cur += s;
    },
  );
  pages.push(cur);
  const kept = pages.map(tidy);
  // A break before any text (a title page rendered empty) would make an empty first page; keep it: page numbers match Word's.
  const text = kept.length > 1 ? kept.map((p, i) => `--- Page ${i + 1} ---\n${p}`).join('\n\n') : kept[0];
  return { kind: 'docx', text, units: kept.length, unitName: 'pages' };
}

// ---- Excel ----

/** Zero-based column index from a cell reference ("C7" → 2). */
function columnOf(ref: string | undefined): number | null {
  const m = ref ? /^([A-Z]+)/.exec(ref) : null;
  if (!m) return null;
  let n = 0;
  for (const ch of m[1]) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

const MAX_COLUMNS = 256;

function xlsx(zip: ZipReader): DocumentText {
  const shared: string[] = [];
  const sst = zip.text('xl/sharedStrings.xml');
  if (sst) {
    let cur: string | null = null;
    let inT = false;
    let phonetic = 0;
    walk(
      sst,
      (t) => {
        if (t.name === 'si') {
          if (t.close) shared.push(cur ?? '');
          else cur = t.self ? (shared.push(''), null) : '';
        } else if (t.name === 'rPh') phonetic += t.close ? -1 : t.self ? 0 : 1;
        else if (t.name === 't') inT = !t.close && !t.self;
      },
      (s) => {
        if (inT && !phonetic && cur !== null) cur += s;
      },
    );
  }
  const rels = relations(zip, 'xl/workbook.xml');
  const sheets: { name: string; part?: string; hidden: boolean }[] = [];
  walk(
    required(zip, 'xl/workbook.xml'),
    (t) => {
      if (t.close || t.name !== 'sheet') return;
      const rid = attr(t.attrs, 'r:id');
      sheets.push({ name: attr(t.attrs, 'name') ?? `Sheet${sheets.length + 1}`, part: rid ? rels.get(rid)?.target : undefined, hidden: (attr(t.attrs, 'state') ?? 'visible') !== 'visible' });
    },
    () => undefined,
  );
  const out = sheets.map((sheet, i) => {
    const head = `--- Sheet ${i + 1}: ${sheet.name}${sheet.hidden ? ' (hidden)' : ''} ---`;
    const xml = sheet.part ? zip.text(sheet.part) : null;
    if (xml === null) return `${head}\n(no cells)`;
    const rows: string[] = [];
    let row: string[] = [];
    let col = 0;
    let type = '';
    let value: string | null = null;
    let inValue = false;
    walk(
      xml,
      (t) => {
        if (t.name === 'row') {
          if (t.close || t.self) {
            if (!t.self || row.length) rows.push(row.join('\t').replace(/\t+$/, ''));
            row = [];
          } else row = [];
          return;
        }
        if (t.name === 'c') {
          if (t.close || t.self) {
            if (col < MAX_COLUMNS && value !== null) {
              while (row.length < col) row.push('');
              row[col] = cellText(type, value, shared);
            }
            return;
          }
          col = columnOf(attr(t.attrs, 'r')) ?? row.length;
          type = attr(t.attrs, 't') ?? '';
          value = null;
          return;
        }
        if (t.name === 'v' || t.name === 't') {
          inValue = !t.close && !t.self;
          if (inValue && value === null) value = '';
        }
      },
      (s) => {
        if (inValue) value = (value ?? '') + s.replace(/\r?\n/g, ' ');
      },
    );
    while (rows.length && !rows[rows.length - 1]) rows.pop();
    return `${head}\n${rows.length ? rows.join('\n') : '(no cells)'}`;
  });
  return { kind: 'xlsx', text: out.join('\n\n'), units: sheets.length, unitName: 'sheets' };
}

function cellText(type: string, v: string, shared: string[]): string {
  if (type === 's') return (shared[Number(v)] ?? '').replace(/\r?\n/g, ' ');
  if (type === 'b') return v === '1' ? 'TRUE' : 'FALSE';
  return v;
}

// ---- PowerPoint ----

function pptx(zip: ZipReader): DocumentText {
  const rels = relations(zip, 'ppt/presentation.xml');
  const slides: string[] = [];
  walk(
    required(zip, 'ppt/presentation.xml'),
    (t) => {
      if (t.close || t.name !== 'p:sldId') return;
      const target = rels.get(attr(t.attrs, 'r:id') ?? '')?.target;
      if (target) slides.push(target);
    },
    () => undefined,
  );
  const out = slides.map((part, i) => {
    const body = drawingText(zip.text(part) ?? '');
    const notesPart = [...relations(zip, part).values()].find((r) => r.type.endsWith('/notesSlide'))?.target;
    const notes = notesPart ? drawingText(zip.text(notesPart) ?? '', true) : '';
    return `--- Slide ${i + 1} ---\n${body || '(no text)'}${notes ? `\n\nNotes: ${notes}` : ''}`;
  });
  return { kind: 'pptx', text: out.join('\n\n'), units: slides.length, unitName: 'slides' };
}

/** The text of a slide's shapes; for notes, without the slide-number placeholder. */
function drawingText(xml: string, notes = false): string {
  let out = '';
  let shape = '';
  let skipShape = false;
  let inT = false;
  let cellDepth = 0;
  const firstCell: boolean[] = [];
  walk(
    xml,
    (t) => {
      const n = t.name;
      if (n === 'a:t') inT = !t.close && !t.self;
      else if (n === 'p:sp' && !t.self) {
        if (!t.close || !skipShape) out += shape; // closing: the shape's text; opening: text before it (tables)
        shape = '';
        skipShape = false;
      } else if (n === 'p:ph' && notes && !t.close && /^(sldNum|sldImg|hdr|ftr|dt)$/.test(attr(t.attrs, 'type') ?? '')) skipShape = true;
      else if (n === 'a:p' && t.close) shape += cellDepth ? ' ' : '\n';
      else if (n === 'a:br' && !t.close) shape += cellDepth ? ' ' : '\n';
      else if (n === 'a:tr' && !t.self) {
        if (t.close) {
          shape = `${shape.replace(/ +$/, '')}\n`;
          firstCell.pop();
        } else firstCell.push(true);
      } else if (n === 'a:tc' && !t.self) {
        if (t.close) cellDepth--;
        else {
          if (firstCell.length && !firstCell[firstCell.length - 1]) shape = `${shape.replace(/ +$/, '')} | `;
          if (firstCell.length) firstCell[firstCell.length - 1] = false;
          cellDepth++;
        }
      }
    },
    (s) => {
      if (inT) shape += s;
    },
  );
  out += shape; // text outside any p:sp (graphic frames such as tables)
  return tidy(out.replace(/ +\n/g, '\n'));
}
