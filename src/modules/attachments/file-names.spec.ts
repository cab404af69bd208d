import { contentDisposition, sanitizeFileName } from './file-names';

describe('sanitizeFileName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd.csv', 'passwd.csv'],
    ['C:\\Users\\me\\Desktop\\plan.docx', 'plan.docx'],
    ['evil"; filename="x.exe.pdf', 'evil_; filename=_x.exe.pdf'],
    ['line\r\nSet-Cookie: a=b.csv', 'lineSet-Cookie_ a=b.csv'],
    ['tab\there.png', 'tabhere.png'],
    ['photo\u202Egnp.exe', 'photognp.exe'],
    ['.hidden.json', 'hidden.json'],
    ['trailing dots...', 'trailing dots'],
    ['   ', 'attachment'],
    ['Zoë ☕ résumé.pdf', 'Zoë ☕ résumé.pdf'],
    ['<script>.svg', '_script_.svg'],
  ])('%j becomes %j', (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });

  it('caps the length and keeps the extension', () => {
    const name = sanitizeFileName(`${'a'.repeat(500)}.xlsx`);
    expect([...name]).toHaveLength(200);
    expect(name.endsWith('.xlsx')).toBe(true);
  });

  it('gives a name without extension the extension of its kind', () => {
    expect(sanitizeFileName('scan', 'png')).toBe('scan.png');
    expect(sanitizeFileName(undefined, 'jpeg')).toBe('attachment.jpg');
    expect(sanitizeFileName('data.csv', 'csv')).toBe('data.csv');
  });
});

describe('contentDisposition', () => {
  it('is always an attachment, with an ASCII fallback and the UTF-8 name', () => {
    expect(contentDisposition('report.pdf')).toBe(
      `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`,
    );
    expect(contentDisposition("Zoë's ☕ (1).csv")).toBe(
      `attachment; filename="Zoe's _ (1).csv"; filename*=UTF-8''Zo%C3%AB%27s%20%E2%98%95%20%281%29.csv`,
    );
  });
});
