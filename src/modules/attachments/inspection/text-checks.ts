/**
 * Streaming shape checks for the text kinds. Each takes the decoded text in
 * chunks of any size (a token may be split anywhere) and throws
 * TextShapeError at the first problem; memory stays constant however long
 * the file is.
 */
export class TextShapeError extends Error {
  override readonly name = 'TextShapeError';
}

export interface TextChecker {
  write(text: string): void;
  /** Throws when the text ended in the middle of something. */
  end(): void;
}

const isWs = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

// ---------------------------------------------------------------------------
// JSON (RFC 8259), any value at the top level.

type JsonExpect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'done';
type JsonToken = 'none' | 'string' | 'escape' | 'unicode' | 'number' | 'literal';

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const MAX_DEPTH = 512;

export class JsonChecker implements TextChecker {
  private expect: JsonExpect = 'value';
  private readonly stack: ('{' | '[')[] = [];
  private token: JsonToken = 'none';
  private tokenText = '';
  private unicodeLeft = 0;
  private stringIsKey = false;
  private offset = 0;

  write(text: string): void {
    for (let i = 0; i < text.length; i++, this.offset++) this.step(text[i]);
  }

  end(): void {
    if (this.token === 'number' || this.token === 'literal') this.finishScalar();
    if (this.token !== 'none') this.fail('the text ends inside a string');
    if (this.expect !== 'done') this.fail('the text ends before the JSON value is complete');
  }

  private fail(why: string): never {
    throw new TextShapeError(`Not valid JSON: ${why} (at character ${this.offset}).`);
  }

  private step(c: string): void {
    switch (this.token) {
      case 'string':
        if (c === '"') {
          this.token = 'none';
          this.afterValue(this.stringIsKey);
        } else if (c === '\\') this.token = 'escape';
        else if (c < ' ') this.fail('a control character inside a string');
        return;
      case 'escape':
        if (c === 'u') {
          this.token = 'unicode';
          this.unicodeLeft = 4;
        } else if ('"\\/bfnrt'.includes(c)) this.token = 'string';
        else this.fail(`an invalid escape \\${c}`);
        return;
      case 'unicode':
        if (!/[0-9a-fA-F]/.test(c)) this.fail('an invalid \\u escape');
        if (--this.unicodeLeft === 0) this.token = 'string';
        return;
      case 'number':
      case 'literal':
        if (/[0-9a-zA-Z.+-]/.test(c)) {
          if (this.tokenText.length > 1000) this.fail('a number or literal that is too long');
          this.tokenText += c;
          return;
        }
        this.finishScalar();
        break; // the character that ended the scalar is handled below
    }
    if (isWs(c)) return;
    switch (this.expect) {
      case 'value':
      case 'value-or-close':
        if (c === ']' && this.expect === 'value-or-close') return this.close(c);
        return this.startValue(c);
      case 'key':
      case 'key-or-close':
        if (c === '}' && this.expect === 'key-or-close') return this.close(c);
        if (c !== '"') this.fail('an object key that is not a string');
        this.token = 'string';
        this.stringIsKey = true;
        return;
      case 'colon':
        if (c !== ':') this.fail('a missing colon after an object key');
        this.expect = 'value';
        return;
      case 'comma-or-close':
        if (c === ',') {
          this.expect = this.stack[this.stack.length - 1] === '{' ? 'key' : 'value';
          return;
        }
        if (c === '}' || c === ']') return this.close(c);
        return this.fail(`an unexpected "${c}"`);
      case 'done':
        return this.fail('text after the JSON value');
    }
  }

  private startValue(c: string): void {
    if (c === '{' || c === '[') {
      if (this.stack.length >= MAX_DEPTH) this.fail('nesting deeper than 512 levels');
      this.stack.push(c);
      this.expect = c === '{' ? 'key-or-close' : 'value-or-close';
    } else if (c === '"') {
      this.token = 'string';
      this.stringIsKey = false;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      this.token = 'number';
      this.tokenText = c;
    } else if (c === 't' || c === 'f' || c === 'n') {
      this.token = 'literal';
      this.tokenText = c;
    } else this.fail(`an unexpected "${c}"`);
  }

  private finishScalar(): void {
    const text = this.tokenText;
    const ok = this.token === 'number' ? NUMBER.test(text) : ['true', 'false', 'null'].includes(text);
    if (!ok) this.fail(`an invalid value "${text.slice(0, 40)}"`);
    this.token = 'none';
    this.tokenText = '';
    this.afterValue(false);
  }

  private close(c: string): void {
    const open = this.stack.pop();
    if ((c === '}' && open !== '{') || (c === ']' && open !== '[')) this.fail(`a mismatched "${c}"`);
    this.afterValue(false);
  }

  private afterValue(wasKey: boolean): void {
    if (wasKey) this.expect = 'colon';
    else this.expect = this.stack.length ? 'comma-or-close' : 'done';
  }
}

// ---------------------------------------------------------------------------
// XML: well-formed in shape (balanced, properly nested elements, one root,
// quoted attributes, terminated comments, CDATA, processing instructions and
// DOCTYPE). Entities are not expanded and DTDs are not read.

type XmlMode =
  | 'text'
  | 'lt'
  | 'bang'
  | 'comment'
  | 'cdata'
  | 'pi'
  | 'doctype'
  | 'start-name'
  | 'attrs'
  | 'attr-value'
  | 'self-close'
  | 'end-name'
  | 'end-tail';

const NAME_START = /[A-Za-z_:\u00C0-\uFFFF]/;
const NAME_CHAR = /[A-Za-z0-9_:.\-\u00B7\u00C0-\uFFFF]/;

export class XmlChecker implements TextChecker {
  /** The root element's name as written (`svg`, `svg:svg`, `catalog`...), once seen. */
  rootName: string | null = null;
  /** The name a DOCTYPE declares, if there is one. */
  doctypeName: string | null = null;

  private mode: XmlMode = 'text';
  private readonly stack: string[] = [];
  private name = '';
  private bang = '';
  private tail = '';
  private quote = '';
  private doctypeDepth = 0;
  private doctypeText = '';
  private rootClosed = false;
  private offset = 0;

  write(text: string): void {
    for (let i = 0; i < text.length; i++, this.offset++) this.step(text[i]);
  }

  end(): void {
    if (this.mode !== 'text') this.fail('the text ends inside markup');
    if (!this.rootName) this.fail('there is no root element');
    if (this.stack.length) this.fail(`the element <${this.stack[this.stack.length - 1]}> is never closed`);
  }

  private fail(why: string): never {
    throw new TextShapeError(`Not well-formed XML: ${why} (at character ${this.offset}).`);
  }

  private step(c: string): void {
    switch (this.mode) {
      case 'text':
        if (c === '<') this.mode = 'lt';
        else if (!this.stack.length && !isWs(c) && c !== '\uFEFF') {
          this.fail(this.rootClosed ? 'text after the root element' : 'text before the root element');
        }
        return;
      case 'lt':
        if (c === '/') {
          this.mode = 'end-name';
          this.name = '';
        } else if (c === '?') {
          this.mode = 'pi';
          this.tail = '';
        } else if (c === '!') {
          this.mode = 'bang';
          this.bang = '';
        } else if (NAME_START.test(c)) {
          if (this.rootClosed) this.fail('a second root element');
          this.mode = 'start-name';
          this.name = c;
        } else this.fail(`"<" followed by "${c}"`);
        return;
      case 'bang':
        this.bang += c;
        if (this.bang === '--') {
          this.mode = 'comment';
          this.tail = '';
        } else if (this.bang === '[CDATA[') {
          if (!this.stack.length) this.fail('CDATA outside the root element');
          this.mode = 'cdata';
          this.tail = '';
        } else if (this.bang.toUpperCase() === 'DOCTYPE') {
          if (this.rootName) this.fail('a DOCTYPE after the root element');
          this.mode = 'doctype';
          this.doctypeDepth = 0;
          this.doctypeText = '';
          this.quote = '';
        } else if (!['--', '[CDATA[', 'DOCTYPE'].some((p) => p.startsWith(this.bang.toUpperCase()))) {
          this.fail(`an unknown declaration <!${this.bang}`);
        }
        return;
      case 'comment':
        this.tail = (this.tail + c).slice(-3);
        if (this.tail === '-->') this.mode = 'text';
        return;
      case 'cdata':
        this.tail = (this.tail + c).slice(-3);
        if (this.tail === ']]>') this.mode = 'text';
        return;
      case 'pi':
        this.tail = (this.tail + c).slice(-2);
        if (this.tail === '?>') this.mode = 'text';
        return;
      case 'doctype':
        if (this.doctypeText.length < 200) this.doctypeText += c;
        if (this.quote) {
          if (c === this.quote) this.quote = '';
        } else if (c === '"' || c === "'") this.quote = c;
        else if (c === '[') this.doctypeDepth++;
        else if (c === ']') this.doctypeDepth--;
        else if (c === '>' && this.doctypeDepth <= 0) {
          this.doctypeName = this.doctypeText.trim().split(/[\s>[]/)[0] || null;
          this.mode = 'text';
        }
        return;
      case 'start-name':
        if (NAME_CHAR.test(c)) {
          if (this.name.length > 1000) this.fail('an element name that is too long');
          this.name += c;
          return;
        }
        this.mode = 'attrs';
        return this.attrs(c);
      case 'attrs':
        return this.attrs(c);
      case 'attr-value':
        if (c === this.quote) this.mode = 'attrs';
        else if (c === '<') this.fail('"<" inside an attribute value');
        return;
      case 'self-close':
        if (c !== '>') this.fail('"/" inside a tag');
        this.open(true);
        return;
      case 'end-name':
        if (NAME_CHAR.test(c) || (!this.name && NAME_START.test(c))) {
          this.name += c;
          return;
        }
        this.mode = 'end-tail';
        return this.endTail(c);
      case 'end-tail':
        return this.endTail(c);
    }
  }

  private attrs(c: string): void {
    if (c === '>') this.open(false);
    else if (c === '/') this.mode = 'self-close';
    else if (c === '"' || c === "'") {
      this.quote = c;
      this.mode = 'attr-value';
    } else if (c === '<') this.fail(`"<" inside the tag <${this.name}>`);
  }

  private open(selfClosing: boolean): void {
    if (!this.rootName) this.rootName = this.name;
    if (selfClosing) {
      if (!this.stack.length) this.rootClosed = true;
    } else {
      if (this.stack.length >= 10_000) this.fail('elements nested too deeply');
      this.stack.push(this.name);
    }
    this.mode = 'text';
  }

  private endTail(c: string): void {
    if (isWs(c)) return;
    if (c !== '>') this.fail(`an unexpected "${c}" in the end tag </${this.name}>`);
    const open = this.stack.pop();
    if (open !== this.name) {
      this.fail(open ? `</${this.name}> closes <${open}>` : `</${this.name}> closes nothing`);
    }
    if (!this.stack.length) this.rootClosed = true;
    this.mode = 'text';
  }
}

// ---------------------------------------------------------------------------
// CSV (RFC 4180 quoting): a header record with at least two fields, and the
// same number of fields in every record. The delimiter (comma, semicolon,
// tab or pipe) is the one the header uses most. Blank lines are skipped.

const DELIMITERS = [',', ';', '\t', '|'];
const MAX_HEADER = 256 * 1024;

export class CsvChecker implements TextChecker {
  delimiter: string | null = null;
  columns = 0;
  records = 0;

  private header = '';
  private fields = 0;
  private fieldStart = true;
  private inQuotes = false;
  private quoteSeen = false; // a quote inside a quoted field: an escape or the field's end
  private afterQuoted = false;
  private lineEmpty = true;
  private lastWasCr = false;
  private line = 1;

  write(text: string): void {
    let i = 0;
    if (!this.delimiter) {
      i = this.collectHeader(text);
      if (!this.delimiter) return;
    }
    for (; i < text.length; i++) this.step(text[i]);
  }

  end(): void {
    if (!this.delimiter) {
      this.chooseDelimiter(this.header);
      for (const c of this.header) this.step(c);
    }
    if (this.inQuotes && !this.quoteSeen) this.fail('a quoted field is never closed');
    this.endRecord();
    if (!this.records) this.fail('there is no header record');
  }

  private fail(why: string): never {
    throw new TextShapeError(`Not valid CSV: ${why} (line ${this.line}).`);
  }

  /** Buffers the first line to choose the delimiter; answers how much of `text` it took. */
  private collectHeader(text: string): number {
    const newline = text.search(/[\r\n]/);
    if (newline === -1) {
      this.header += text;
      if (this.header.length > MAX_HEADER) this.fail('the header line is longer than 256 KiB');
      return text.length;
    }
    const header = this.header + text.slice(0, newline);
    this.header = '';
    this.chooseDelimiter(header);
    for (const c of header) this.step(c);
    return newline;
  }

  private chooseDelimiter(header: string): void {
    const unquoted = header.replace(/"[^"]*"/g, '');
    let best: string | null = null;
    let bestCount = 0;
    for (const d of DELIMITERS) {
      const count = unquoted.split(d).length - 1;
      if (count > bestCount) {
        best = d;
        bestCount = count;
      }
    }
    if (!best) this.fail('the header has a single column (no comma, semicolon, tab or pipe)');
    this.delimiter = best;
  }

  private step(c: string): void {
    if (this.inQuotes) {
      if (this.quoteSeen) {
        this.quoteSeen = false;
        if (c === '"') return; // "" is an escaped quote
        this.inQuotes = false;
        this.afterQuoted = true;
        // fall through: the character after the closing quote
      } else {
        if (c === '"') this.quoteSeen = true;
        else if (c === '\n') this.line++;
        return;
      }
    }
    if (c === '\n' || c === '\r') {
      if (c === '\n' && this.lastWasCr) {
        this.lastWasCr = false;
        return;
      }
      this.lastWasCr = c === '\r';
      this.endRecord();
      this.line++;
      return;
    }
    this.lastWasCr = false;
    this.lineEmpty = false;
    if (c === this.delimiter) {
      this.fields++;
      this.fieldStart = true;
      this.afterQuoted = false;
      return;
    }
    if (this.afterQuoted) this.fail('text after the closing quote of a field');
    if (c === '"') {
      if (!this.fieldStart) this.fail('a quote in the middle of an unquoted field');
      this.inQuotes = true;
    }
    this.fieldStart = false;
  }

  private endRecord(): void {
    if (this.lineEmpty) {
      this.resetRecord();
      return;
    }
    const fields = this.fields + 1;
    if (!this.records) {
      if (fields < 2) this.fail('the header has a single column');
      this.columns = fields;
    } else if (fields !== this.columns) {
      this.fail(`a record has ${fields} fields where the header has ${this.columns}`);
    }
    this.records++;
    this.resetRecord();
  }

  private resetRecord(): void {
    this.fields = 0;
    this.fieldStart = true;
    this.afterQuoted = false;
    this.lineEmpty = true;
  }
}
