// test-timeout: 120
// read_file on documents: PDF, Word, Excel and PowerPoint files come back as their text with page,
// sheet and slide marker lines, paged by offset/limit; a damaged one gives one clear error. The
// fixtures are built here: Office files are ZIPs of XML parts (written with node:zlib), the PDF is
// written by hand with a text content stream and a correct xref table.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateRawSync } from 'node:zlib';
import readFile from '../../src/tools/defs/read-file.ts';
import { hermes, homeWithModel } from '../helpers/cli.ts';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.ts';
import { call, makeServices } from './helpers.ts';

/** A ZIP archive (deflated entries, or stored ones with `store`). */
function zip(files: Record<string, string>, store = false): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const raw = Buffer.from(text, 'utf8');
    const data = store ? raw : deflateRawSync(raw);
    const n = Buffer.from(name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(store ? 0 : 8, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(n.length, 26);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(store ? 0 : 8, 10);
    cd.writeUInt32LE(crc32(raw), 16);
    cd.writeUInt32LE(data.length, 20);
    cd.writeUInt32LE(raw.length, 24);
    cd.writeUInt16LE(n.length, 28);
    cd.writeUInt32LE(offset, 42);
    locals.push(local, n, data);
    central.push(cd, n);
    offset += 30 + n.length + data.length;
  }
  const cdBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(cdBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cdBuf, end]);
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const para = (t: string) => `<w:p><w:r><w:t xml:space="preserve">${t}</w:t></w:r></w:p>`;
const DOCX = zip({
  '[Content_Types].xml': '<?xml version="1.0"?><Types/>',
  'word/document.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>${para('Quarterly report')}${para('Revenue rose &amp; costs fell.')}<w:p><w:r><w:t>Tab</w:t><w:tab/><w:t>bed</w:t></w:r></w:p><w:tbl><w:tr><w:tc>${para('Region')}</w:tc><w:tc>${para('Sales')}</w:tc></w:tr><w:tr><w:tc>${para('North')}</w:tc><w:tc>${para('42')}</w:tc></w:tr></w:tbl><w:p><w:r><w:br w:type="page"/><w:t>Second page text</w:t></w:r></w:p></w:body></w:document>`,
});

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XLSX = zip({
  'xl/workbook.xml': `<workbook xmlns:r="${REL}"><sheets><sheet name="Budget" sheetId="1" r:id="rId1"/><sheet name="Notes &amp; more" sheetId="2" r:id="rId2"/></sheets></workbook>`,
  'xl/_rels/workbook.xml.rels': `<Relationships><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/worksheet" Target="/xl/worksheets/sheet2.xml"/></Relationships>`,
  'xl/sharedStrings.xml': '<sst><si><t>Item</t></si><si><t>Cost</t></si><si><r><t>Coff</t></r><r><t>ee</t></r></si></sst>',
  'xl/worksheets/sheet1.xml': '<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2" t="s"><v>2</v></c><c r="C2"><v>3.5</v></c></row><row r="3"><c r="A3" t="inlineStr"><is><t>Paid</t></is></c><c r="B3" t="b"><v>1</v></c></row></sheetData></worksheet>',
  'xl/worksheets/sheet2.xml': '<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>remember the milk</t></is></c></row></sheetData></worksheet>',
});

const P = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="${REL}"`;
const slide = (lines: string[]) => `<p:sld ${P}><p:cSld><p:spTree><p:sp><p:txBody>${lines.map((l) => `<a:p><a:r><a:t>${l}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
const PPTX = zip({
  'ppt/presentation.xml': `<p:presentation ${P}><p:sldIdLst><p:sldId id="257" r:id="rId3"/><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>`,
  'ppt/_rels/presentation.xml.rels': `<Relationships><Relationship Id="rId2" Type="${REL}/slide" Target="slides/slide1.xml"/><Relationship Id="rId3" Type="${REL}/slide" Target="slides/slide2.xml"/></Relationships>`,
  'ppt/slides/slide1.xml': slide(['Roadmap', 'Ship the beta']),
  'ppt/slides/slide2.xml': slide(['Welcome deck']).replace('</p:spTree>', `<p:graphicFrame><a:graphic><a:graphicData><a:tbl>${['Q1,10', 'Q2,12'].map((r) => `<a:tr>${r.split(',').map((c) => `<a:tc><a:txBody><a:p><a:r><a:t>${c}</a:t></a:r></a:p></a:txBody></a:tc>`).join('')}</a:tr>`).join('')}</a:tbl></a:graphicData></a:graphic></p:graphicFrame></p:spTree>`),
  'ppt/slides/_rels/slide1.xml.rels': `<Relationships><Relationship Id="rId9" Type="${REL}/notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>`,
  'ppt/notesSlides/notesSlide1.xml': `<p:notes ${P}><p:cSld><p:spTree><p:sp><p:nvSpPr><p:nvPr><p:ph type="body"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>Mention the date</a:t></a:r></a:p></p:txBody></p:sp><p:sp><p:nvSpPr><p:nvPr><p:ph type="sldNum"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>7</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:notes>`,
}, true);

/** A two-page PDF written by hand: Helvetica text on each page, offsets in the xref table exact. */
function pdf(pages: string[]): Buffer {
  const objs: string[] = [];
  const kids = pages.map((_, i) => `${4 + i * 2} 0 R`).join(' ');
  objs.push('<< /Type /Catalog /Pages 2 0 R >>');
  objs.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objs.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (let i = 0; i < pages.length; i++) {
    const stream = `BT /F1 12 Tf 72 720 Td (${pages[i]}) Tj ET`;
    objs.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`);
    objs.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objs.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describe('read_file on documents', () => {
  const s = makeServices();
  before(() => {
    writeFileSync(join(s.cwd, 'report.docx'), DOCX);
    writeFileSync(join(s.cwd, 'budget.xlsx'), XLSX);
    writeFileSync(join(s.cwd, 'deck.pptx'), PPTX);
    writeFileSync(join(s.cwd, 'paper.pdf'), pdf(['Hello from page one', 'The second page says goodbye']));
  });

  it('reads a PDF page by page with --- Page N --- markers', async () => {
    const r = await call(readFile, { path: 'paper.pdf' }, s);
    assert.equal(r.json.document, 'pdf', JSON.stringify(r.json));
    assert.equal(r.json.pages, 2);
    assert.match(r.json.content, /^1\|--- Page 1 ---\n2\|Hello from page one\n3\|\n4\|--- Page 2 ---\n5\|The second page says goodbye$/);
    const part = await call(readFile, { path: 'paper.pdf', offset: 4, limit: 2 }, s);
    assert.equal(part.json.content, '4|--- Page 2 ---\n5|The second page says goodbye');
  });

  it('reads a Word document: paragraphs, tabs, tables as cells and pages from page breaks', async () => {
    const r = await call(readFile, { path: 'report.docx' }, s);
    assert.equal(r.json.document, 'docx', JSON.stringify(r.json));
    assert.equal(r.json.pages, 2);
    const text = r.json.content.replace(/^\d+\|/gm, '');
    assert.equal(text, '--- Page 1 ---\nQuarterly report\nRevenue rose & costs fell.\nTab\tbed\nRegion | Sales\nNorth | 42\n\n--- Page 2 ---\nSecond page text');
  });

  it('reads a workbook sheet by sheet, cells tab-separated in their columns', async () => {
    const r = await call(readFile, { path: 'budget.xlsx' }, s);
    assert.equal(r.json.document, 'xlsx', JSON.stringify(r.json));
    assert.equal(r.json.sheets, 2);
    const text = r.json.content.replace(/^\d+\|/gm, '');
    assert.equal(text, '--- Sheet 1: Budget ---\nItem\tCost\nCoffee\t\t3.5\nPaid\tTRUE\n\n--- Sheet 2: Notes & more ---\nremember the milk');
  });

  it('reads a presentation slide by slide in the deck order, with speaker notes (stored ZIP entries)', async () => {
    const r = await call(readFile, { path: 'deck.pptx' }, s);
    assert.equal(r.json.document, 'pptx', JSON.stringify(r.json));
    assert.equal(r.json.slides, 2);
    const text = r.json.content.replace(/^\d+\|/gm, '');
    assert.equal(text, '--- Slide 1 ---\nWelcome deck\nQ1 | 10\nQ2 | 12\n\n--- Slide 2 ---\nRoadmap\nShip the beta\n\nNotes: Mention the date');
  });

  it('a damaged document gives one clear error; a plain ZIP stays a binary', async () => {
    writeFileSync(join(s.cwd, 'broken.docx'), DOCX.subarray(0, 60));
    const bad = await call(readFile, { path: 'broken.docx' }, s);
    assert.equal(bad.json.document_error, true);
    assert.match(bad.json.error, /broken\.docx could not be read: it could not be opened as an Office document: not a ZIP archive/);
    writeFileSync(join(s.cwd, 'broken.pdf'), Buffer.from('%PDF-1.4\n1 0 obj\n<< garbage'));
    const badPdf = await call(readFile, { path: 'broken.pdf' }, s);
    assert.equal(badPdf.json.document_error, true, JSON.stringify(badPdf.json));
    assert.match(badPdf.json.error, /broken\.pdf could not be read: the PDF could not be parsed/);
    writeFileSync(join(s.cwd, 'other.docx'), zip({ 'readme.txt': 'hi' }));
    assert.match((await call(readFile, { path: 'other.docx' }, s)).json.error, /not a Word, Excel or PowerPoint document/);
    writeFileSync(join(s.cwd, 'bundle.zip'), zip({ 'readme.txt': 'hi' }));
    const plain = await call(readFile, { path: 'bundle.zip' }, s);
    assert.equal(plain.json.is_binary, true);
  });
});

describe('read_file on a document through the hermes binary', () => {
  let fake: FakeLlm;
  before(async () => {
    fake = await startFakeLlm();
  });
  after(async () => {
    await fake.close();
  });

  it('the model reads a docx; the result is its text, secrets in it redacted', async () => {
    const home = homeWithModel(fake.openaiBaseUrl);
    const key = `sk-proj-${'a1B2c3D4e5'.repeat(4)}`;
    writeFileSync(join(home, 'notes.docx'), zip({ 'word/document.xml': `<w:document ${W}><w:body>${para('Meeting notes')}${para(`OPENAI_API_KEY=${key}`)}</w:body></w:document>` }));
    const n = fake.requests.length;
    fake.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.docx' } }] }, { text: 'Read it.' });
    const r = await hermes(['chat', '-q', 'read notes.docx'], { home });
    assert.equal(r.code, 0, r.stderr);
    const tool = (fake.requests[n + 1].body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!;
    assert.match(tool.content, /1\|Meeting notes/);
    assert.match(tool.content, /"document":"docx"/);
    assert.ok(!tool.content.includes(key), tool.content);
  });
});
