import { deflateRawSync } from 'node:zlib';

/** Small valid files of every kind attachments accept (and some they refuse), built in memory. */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A ZIP archive (deflated entries, local headers, central directory, end record). */
export function zip(entries: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const OOXML = {
  docx: { folder: 'word', part: 'document.xml', type: 'wordprocessingml.document.main+xml' },
  xlsx: { folder: 'xl', part: 'workbook.xml', type: 'spreadsheetml.sheet.main+xml' },
  pptx: { folder: 'ppt', part: 'presentation.xml', type: 'presentationml.presentation.main+xml' },
};

/** A minimal Office Open XML package (what Word, Excel and PowerPoint write first). */
export function ooxml(kind: keyof typeof OOXML): Buffer {
  const { folder, part, type } = OOXML[kind];
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/${folder}/${part}" ContentType="application/vnd.openxmlformats-officedocument.${type}"/>` +
      '</Types>',
    '_rels/.rels':
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${folder}/${part}"/>` +
      '</Relationships>',
    [`${folder}/${part}`]: '<?xml version="1.0" encoding="UTF-8"?><root/>',
  });
}

/** An OLE compound file whose directory names the given streams (as Word, Excel and PowerPoint files do). */
export function compoundFile(streams: string[]): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x003e, 24); // minor version
  header.writeUInt16LE(0x0003, 26); // major version 3
  header.writeUInt16LE(0xfffe, 28); // little-endian
  header.writeUInt16LE(9, 30); // 512-byte sectors
  header.writeUInt16LE(6, 32);
  header.writeUInt32LE(0, 48); // first directory sector
  const names = ['Root Entry', ...streams];
  const directory = Buffer.alloc(Math.ceil(names.length / 4) * 512);
  names.forEach((name, i) => {
    const entry = directory.subarray(i * 128, i * 128 + 128);
    Buffer.from(`${name}\0`, 'utf16le').copy(entry, 0);
    entry.writeUInt16LE((name.length + 1) * 2, 64);
    entry[66] = i === 0 ? 5 : 2; // root storage, then streams
    entry.writeInt32LE(-1, 68);
    entry.writeInt32LE(-1, 72);
    entry.writeInt32LE(-1, 76);
  });
  return Buffer.concat([header, directory, Buffer.alloc(512, 0x20)]);
}

export const SAMPLES = {
  png: () =>
    Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    ),
  jpeg: () =>
    Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
      Buffer.from('JFIF\0'),
      Buffer.from([0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
      Buffer.alloc(64, 0x11),
      Buffer.from([0xff, 0xd9]),
    ]),
  gif: () => Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'),
  pdf: () =>
    Buffer.from(
      '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n' +
        '2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>>endobj\n' +
        'trailer<</Root 1 0 R>>\n%%EOF\n',
      'latin1',
    ),
  zip: () => zip({ 'readme.txt': 'hello', 'data/values.csv': 'a,b\n1,2\n' }),
  docx: () => ooxml('docx'),
  xlsx: () => ooxml('xlsx'),
  pptx: () => ooxml('pptx'),
  doc: () => compoundFile(['WordDocument', '\u0001CompObj', 'SummaryInformation']),
  xls: () => compoundFile(['Workbook', 'SummaryInformation']),
  ppt: () => compoundFile(['PowerPoint Document', 'Current User']),
  parquet: () =>
    Buffer.concat([
      Buffer.from('PAR1'),
      Buffer.alloc(40, 0x15),
      Buffer.from([0x1c, 0, 0, 0]),
      Buffer.from('PAR1'),
    ]),
  csv: () => Buffer.from('id,name,amount\n1,"Smith, Jane",10.5\n2,"Quote ""here""",3\n'),
  json: () => Buffer.from('{"rows": [1, 2.5e3, -0.1, true, null, "caf\\u00e9 ☕"], "nested": {"a": []}}\n'),
  xml: () =>
    Buffer.from(
      '<?xml version="1.0"?>\n<!-- orders -->\n<orders><order id="1">Tea &amp; cake</order><![CDATA[<x>]]></orders>\n',
    ),
  svg: () =>
    Buffer.from(
      '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script><rect width="10" height="10"/></svg>',
    ),
  exe: () => {
    const exe = Buffer.alloc(1024);
    exe.write('MZ', 0, 'latin1');
    exe.writeUInt32LE(0x80, 0x3c);
    exe.write('PE\0\0', 0x80, 'latin1');
    exe.writeUInt16LE(0x14c, 0x84);
    return exe;
  },
  html: () =>
    Buffer.from(
      '<!DOCTYPE html>\n<html><head><title>x</title></head><body><script>alert(1)</script></body></html>\n',
    ),
};

export type SampleKind = keyof typeof SAMPLES;
