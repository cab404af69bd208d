import { compoundFile, SAMPLES, zip } from '../../../../test/support/sample-files';
import { InvalidAttachmentFile } from '../attachments.errors';
import { ContentInspector, HEAD_BYTES } from './content-inspector';

/** Feeds a file as the upload pipeline does: the head first, then the bytes in chunks of `chunk`. */
async function inspect(data: Buffer, fileName: string, mime = 'application/octet-stream', chunk = 7) {
  const inspector = new ContentInspector(fileName, mime);
  const head = data.subarray(0, HEAD_BYTES);
  await inspector.begin(head, data.length <= HEAD_BYTES);
  for (let i = 0; i < data.length; i += chunk) inspector.update(data.subarray(i, i + chunk));
  return inspector.finish();
}

async function refusal(data: Buffer, fileName: string, mime?: string): Promise<string> {
  try {
    await inspect(data, fileName, mime);
  } catch (error) {
    if (error instanceof InvalidAttachmentFile) return error.detail;
    throw error;
  }
  throw new Error(`${fileName} was accepted`);
}

describe('ContentInspector', () => {
  it.each([
    ['png', 'pixel.png', 'image/png', 'image/png'],
    ['jpeg', 'photo.jpg', 'image/jpeg', 'image/jpeg'],
    ['gif', 'anim.gif', 'image/gif', 'image/gif'],
    ['pdf', 'report.pdf', 'application/pdf', 'application/pdf'],
    ['zip', 'bundle.zip', 'application/zip', 'application/zip'],
    [
      'docx',
      'memo.docx',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ],
    [
      'xlsx',
      'sheet.xlsx',
      'application/octet-stream',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ],
    ['pptx', 'deck.pptx', '', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    ['doc', 'old.doc', 'application/msword', 'application/msword'],
    ['xls', 'old.xls', 'application/vnd.ms-excel', 'application/vnd.ms-excel'],
    ['ppt', 'old.ppt', 'application/vnd.ms-powerpoint', 'application/vnd.ms-powerpoint'],
    ['parquet', 'table.parquet', 'application/octet-stream', 'application/vnd.apache.parquet'],
    ['csv', 'rows.csv', 'text/csv', 'text/csv'],
    ['json', 'data.json', 'application/json', 'application/json'],
    ['xml', 'orders.xml', 'text/xml', 'application/xml'],
    ['svg', 'logo.svg', 'image/svg+xml', 'image/svg+xml'],
  ] as const)('accepts %s (%s sent as %s) and stores it as %s', async (sample, name, sentAs, stored) => {
    const data = SAMPLES[sample]();
    const result = await inspect(data, name, sentAs);
    expect(result).toEqual({ kind: sample, mime: stored, size: data.length });
  });

  it('decides by content, not by name: a PNG without an extension is a PNG', async () => {
    expect((await inspect(SAMPLES.png(), 'upload')).kind).toBe('png');
  });

  it('tells OOXML from a plain ZIP by its content types', async () => {
    expect((await inspect(SAMPLES.docx(), 'a')).kind).toBe('docx');
    expect((await inspect(SAMPLES.zip(), 'a')).kind).toBe('zip');
    // A plain ZIP that merely holds a folder called "word" stays a ZIP.
    expect((await inspect(zip({ 'word/notes.txt': 'hi' }), 'a.zip')).kind).toBe('zip');
  });

  it('lets the claimed kind pick among the documents a compound file holds', async () => {
    const both = compoundFile(['PowerPoint Document', 'Workbook']);
    expect((await inspect(both, 'deck.ppt')).kind).toBe('ppt');
    expect((await inspect(both, 'sheet.xls')).kind).toBe('xls');
  });

  it.each([
    [SAMPLES.exe(), 'setup.exe', /EXE content/],
    [SAMPLES.exe(), 'invoice.pdf', /EXE content/],
    [SAMPLES.html(), 'page.html', /HTML is not accepted/],
    [SAMPLES.html(), 'page.xml', /HTML is not accepted/],
    [Buffer.from('<div><p>hi</p></div>'), 'frag.xml', /HTML is not accepted/],
    [SAMPLES.png(), 'photo.pdf', /named \.pdf but its content is PNG/],
    [SAMPLES.pdf(), 'report.exe', /named \.exe but its content is PDF/],
    [SAMPLES.docx(), 'memo.zip', /named \.zip but its content is Word/],
    [Buffer.from('{"a": 1}'), 'data.csv', /named \.csv but its content is JSON/],
    [
      Buffer.from('just a sentence of prose without any structure\n'),
      'notes.txt',
      /neither CSV, JSON nor XML/,
    ],
    [Buffer.from('a,b,c\n1,2\n'), 'bad.csv', /a record has 2 fields where the header has 3/],
    [Buffer.from('{"a": [1, 2}'), 'bad.json', /mismatched/],
    [Buffer.from('{"a": 1} trailing'), 'bad.json', /text after the JSON value/],
    [Buffer.from('<x><y></x>'), 'bad.xml', /<\/x> closes <y>/],
    [Buffer.from('<svg><g></svg>'), 'bad.svg', /closes <g>/],
    [Buffer.from([0x61, 0x2c, 0x62, 0x0a, 0xff, 0xfe, 0x2c, 0x31]), 'bad.csv', /unrecognised binary/],
    [
      Buffer.concat([Buffer.from('a,b\n' + '1,2\n'.repeat(70_000)), Buffer.from([0xc3, 0x28])]),
      'late.csv',
      /not valid UTF-8/,
    ],
    [Buffer.from('\ufeffa\0b', 'utf16le'), 'wide.csv', /UTF-8/],
    [Buffer.alloc(0), 'empty.csv', /empty/],
    [compoundFile(['__properties_version1.0', '__substg1.0_0037001F']), 'mail.doc', /compound \(OLE\) file/],
    [SAMPLES.zip().subarray(0, 60), 'cut.zip', /truncated or damaged/],
    [SAMPLES.parquet().subarray(0, 30), 'cut.parquet', /truncated/],
  ])('refuses %#: %s', async (data, name, why) => {
    expect(await refusal(data as Buffer, name as string)).toMatch(why as RegExp);
  });

  it('refuses a media type that contradicts the content', async () => {
    expect(await refusal(SAMPLES.gif(), 'x', 'image/png')).toMatch(
      /sent as image\/png but its content is GIF/,
    );
    expect(await refusal(SAMPLES.pdf(), 'x', 'text/html')).toMatch(/sent as text\/html/);
  });

  it('accepts the media types browsers really send for CSV', async () => {
    expect((await inspect(SAMPLES.csv(), 'r.csv', 'application/vnd.ms-excel')).kind).toBe('csv');
    expect((await inspect(Buffer.from('a\tb\n1\t2\n'), 'r.tsv', 'text/tab-separated-values')).kind).toBe(
      'csv',
    );
  });

  it('checks text past the head: a CSV that breaks after 256 KiB is refused', async () => {
    const rows = 'x,y\n' + '1,2\n'.repeat(100_000) + '3\n';
    expect(Buffer.byteLength(rows)).toBeGreaterThan(HEAD_BYTES);
    expect(await refusal(Buffer.from(rows), 'big.csv')).toMatch(/1 fields where the header has 2/);
  });

  it('is not fooled by a UTF-8 character split across chunks', async () => {
    const data = Buffer.from('name,city\nZoë,Zürich ☕\n');
    for (const chunk of [1, 2, 3, 5])
      expect((await inspect(data, 'u.csv', 'text/csv', chunk)).kind).toBe('csv');
  });
});
