import { TextDecoder } from 'node:util';
import { InvalidAttachmentFile } from '../attachments.errors';
import { ACCEPTED_KINDS_SENTENCE, claimMismatch, extensionOf, FILE_KINDS, FileKind } from './file-kinds';
import { CsvChecker, JsonChecker, TextChecker, TextShapeError, XmlChecker } from './text-checks';

/** How much of the start of a file is read before anything is stored. */
export const HEAD_BYTES = 256 * 1024;

export interface Inspection {
  kind: FileKind;
  mime: string;
  size: number;
}

// What file-type's magic-byte detection says, for the accepted binary kinds.
const BY_DETECTED: Record<string, FileKind | 'ole'> = {
  pdf: 'pdf',
  png: 'png',
  jpg: 'jpeg',
  gif: 'gif',
  parquet: 'parquet',
  zip: 'zip',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  cfb: 'ole',
};

// The streams that make an OLE compound file a Word, Excel or PowerPoint file,
// as UTF-16LE directory entry names (terminated, so "Book" is not "Bookmarks").
const OLE_STREAMS: [FileKind, Buffer][] = [
  ['doc', Buffer.from('WordDocument\0', 'utf16le')],
  ['ppt', Buffer.from('PowerPoint Document\0', 'utf16le')],
  ['xls', Buffer.from('Workbook\0', 'utf16le')],
  ['xls', Buffer.from('Book\0', 'utf16le')],
];
const OLE_OVERLAP = 64;

// A ZIP ends with its end-of-central-directory record, within the last 64 KiB + 22 bytes.
const ZIP_EOCD = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const ZIP_TAIL = 65_557;

// Root elements that make markup HTML rather than XML data.
const HTML_ROOTS = new Set([
  'html',
  'head',
  'body',
  'script',
  'iframe',
  'frameset',
  'object',
  'embed',
  'style',
  'meta',
  'link',
  'form',
  'div',
  'span',
  'p',
  'a',
  'img',
  'table',
  'title',
  'base',
  'template',
]);

// C0 controls other than tab, line feed and carriage return (and DEL) do not occur in text.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x08\x0B-\x0C\x0E-\x1F\x7F]/;

type Plan =
  { type: 'binary'; kind: FileKind } | { type: 'ole' } | { type: 'text'; syntax: 'json' | 'csv' | 'markup' };

function notAccepted(what: string): InvalidAttachmentFile {
  return new InvalidAttachmentFile(
    `${what} is not accepted: attachments may be ${ACCEPTED_KINDS_SENTENCE} files.`,
  );
}

/** Valid UTF-8 with no control characters, as far as the head goes (a sequence cut at its end is fine). */
function looksLikeText(head: Buffer, complete: boolean): boolean {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: !complete });
    return !CONTROL.test(text);
  } catch {
    return false;
  }
}

/**
 * Decides what a file is from its content alone, while it streams: the head
 * by magic bytes (file-type) or, for text, by its first character; then
 * every byte through the checks of that kind (ZIP and Parquet trailers, OLE
 * stream names, UTF-8 and JSON/XML/CSV shape). The client's file name and
 * media type only ever count against the file: a claim that contradicts the
 * content is refused.
 */
export class ContentInspector {
  private plan: Plan | null = null;
  private size = 0;
  private tail = Buffer.alloc(0);
  private tailLimit = 0;
  private readonly oleFound = new Set<FileKind>();
  private decoder: TextDecoder | null = null;
  private checker: TextChecker | null = null;
  private startOfText = true;

  constructor(
    private readonly fileName: string,
    private readonly claimedMime: string,
  ) {}

  /** Looks at the first HEAD_BYTES (or the whole file, when `complete`); throws InvalidAttachmentFile. */
  async begin(head: Buffer, complete: boolean): Promise<void> {
    if (!head.length) throw new InvalidAttachmentFile('The file is empty.');
    // Loaded on the first upload, not at boot (issue 28).
    const { fileTypeFromBuffer } = await import('file-type');
    const detected = await fileTypeFromBuffer(head);
    const known = detected ? BY_DETECTED[detected.ext] : undefined;
    if (known === 'ole') {
      this.plan = { type: 'ole' };
      this.tailLimit = OLE_OVERLAP;
    } else if (known) {
      this.plan = { type: 'binary', kind: known };
      if (['zip', 'docx', 'xlsx', 'pptx'].includes(known)) this.tailLimit = ZIP_TAIL;
      if (known === 'parquet') this.tailLimit = 4;
      this.assertClaim(known);
    } else if ((!detected || detected.ext === 'xml') && this.isUtf16(head)) {
      throw new InvalidAttachmentFile('Text files must be UTF-8 encoded; this one is UTF-16.');
    } else if (looksLikeText(head, complete)) {
      // Weak signatures (such as "BM" for bitmaps) can match text; text that decodes cleanly is text.
      this.startText(head);
    } else if (detected) {
      throw notAccepted(`${detected.ext.toUpperCase()} content (${detected.mime})`);
    } else {
      throw notAccepted('Content of an unrecognised binary kind');
    }
  }

  /** Every byte of the file, in order, head included. */
  update(chunk: Buffer): void {
    if (!this.plan) throw new Error('begin() first');
    this.size += chunk.length;
    if (this.plan.type === 'text') {
      this.updateText(chunk);
      return;
    }
    if (this.plan.type === 'ole') {
      const window = Buffer.concat([this.tail, chunk]);
      for (const [kind, name] of OLE_STREAMS) if (window.includes(name)) this.oleFound.add(kind);
    }
    if (this.tailLimit) {
      const joined = this.tail.length ? Buffer.concat([this.tail, chunk]) : chunk;
      this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - this.tailLimit)));
    }
  }

  /** After the last byte: the verdict, or InvalidAttachmentFile. */
  finish(): Inspection {
    const plan = this.plan;
    if (!plan) throw new Error('begin() first');
    let kind: FileKind;
    if (plan.type === 'text') kind = this.finishText();
    else if (plan.type === 'ole') kind = this.oleKind();
    else {
      kind = plan.kind;
      if (this.tailLimit === ZIP_TAIL && !this.tail.includes(ZIP_EOCD)) {
        throw new InvalidAttachmentFile(
          'The ZIP archive is truncated or damaged (it has no central directory).',
        );
      }
      if (kind === 'parquet' && this.tail.toString('latin1') !== 'PAR1') {
        throw new InvalidAttachmentFile('The Parquet file is truncated (it does not end with its footer).');
      }
    }
    this.assertClaim(kind);
    return { kind, mime: FILE_KINDS[kind].mime, size: this.size };
  }

  private assertClaim(kind: FileKind): void {
    const mismatch = claimMismatch(kind, this.fileName, this.claimedMime);
    if (mismatch) throw new InvalidAttachmentFile(mismatch);
  }

  private isUtf16(head: Buffer): boolean {
    return (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  }

  private startText(head: Buffer): void {
    const peek = new TextDecoder('utf-8').decode(head.subarray(0, 4096)).replace(/^\uFEFF/, '');
    const first = peek.trimStart()[0];
    if (first === '{' || first === '[') {
      this.plan = { type: 'text', syntax: 'json' };
      this.checker = new JsonChecker();
      this.assertClaim('json');
    } else if (first === '<') {
      this.plan = { type: 'text', syntax: 'markup' };
      this.checker = new XmlChecker();
    } else {
      this.plan = { type: 'text', syntax: 'csv' };
      this.checker = new CsvChecker();
      this.assertClaim('csv');
    }
    this.decoder = new TextDecoder('utf-8', { fatal: true });
  }

  private updateText(chunk: Buffer): void {
    let text: string;
    try {
      text = this.decoder!.decode(chunk, { stream: true });
    } catch {
      throw new InvalidAttachmentFile('The file is not valid UTF-8 text.');
    }
    if (this.startOfText && text.length) {
      text = text.replace(/^\uFEFF/, '');
      this.startOfText = false;
    }
    this.checkText(text);
    if (this.checker instanceof XmlChecker) this.assertNotHtml(this.checker);
  }

  private checkText(text: string): void {
    if (CONTROL.test(text)) throw notAccepted('Binary content (control characters in what started as text)');
    try {
      this.checker!.write(text);
    } catch (error) {
      if (error instanceof TextShapeError) throw this.shapeError(error);
      throw error;
    }
  }

  private finishText(): FileKind {
    let rest: string;
    try {
      rest = this.decoder!.decode();
    } catch {
      throw new InvalidAttachmentFile('The file is not valid UTF-8 text (it ends inside a character).');
    }
    if (rest) this.checkText(rest);
    try {
      this.checker!.end();
    } catch (error) {
      if (error instanceof TextShapeError) throw this.shapeError(error);
      throw error;
    }
    const checker = this.checker!;
    if (checker instanceof JsonChecker) return 'json';
    if (checker instanceof CsvChecker) return 'csv';
    const xml = checker as XmlChecker;
    this.assertNotHtml(xml);
    const local = (xml.rootName ?? '').split(':').pop()!.toLowerCase();
    return local === 'svg' ? 'svg' : 'xml';
  }

  private assertNotHtml(xml: XmlChecker): void {
    const root = xml.rootName?.split(':').pop()?.toLowerCase();
    if ((root && HTML_ROOTS.has(root)) || xml.doctypeName?.toLowerCase() === 'html') {
      throw notAccepted('HTML');
    }
  }

  private shapeError(error: TextShapeError): InvalidAttachmentFile {
    const syntax = this.plan?.type === 'text' ? this.plan.syntax : 'text';
    if (syntax === 'csv' && this.csvClaimless()) {
      // Plain text that is not CSV: say what the file may be rather than why it is not CSV.
      return notAccepted(`Text that is neither CSV, JSON nor XML (${error.message})`);
    }
    return new InvalidAttachmentFile(`The file is not accepted: ${error.message}`);
  }

  private csvClaimless(): boolean {
    const extension = extensionOf(this.fileName);
    return !extension || !(FILE_KINDS.csv.extensions as readonly string[]).includes(extension);
  }

  private oleKind(): FileKind {
    const found = (['doc', 'ppt', 'xls'] as FileKind[]).filter((kind) => this.oleFound.has(kind));
    if (!found.length) {
      throw notAccepted('A compound (OLE) file that is not a Word, Excel or PowerPoint document');
    }
    // Documents embed others (a workbook inside a presentation): the claimed kind wins when it is among them.
    const claimed = found.find((kind) => !claimMismatch(kind, this.fileName, this.claimedMime));
    return claimed ?? found[0];
  }
}
