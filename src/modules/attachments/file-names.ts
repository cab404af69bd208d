import { extensionOf, FILE_KINDS, FileKind } from './inspection/file-kinds';

const MAX_NAME_CHARS = 200;
// C0 and C1 controls, DEL, and the bidirectional overrides that make "gpj.exe" read as "exe.jpg".
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const UNSAFE = /[\x00-\x1F\x7F-\x9F\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g;
// Characters Windows forbids in names, and the quote and backslash of header syntax.
const RESERVED = /["\\<>:|?*]/g;

/**
 * The name an uploaded file is kept and served under: the last path
 * segment only, NFC-normalised, without control or bidi-override
 * characters, quotes or backslashes, no leading dots, at most 200
 * characters (the extension kept). A name that ends up empty becomes
 * "attachment"; a name without an extension gets the kind's.
 */
export function sanitizeFileName(raw: string | undefined | null, kind?: FileKind): string {
  let name = (raw ?? '').normalize('NFC');
  name = name.split(/[/\\]/).pop() ?? '';
  name = name.replace(UNSAFE, '').replace(RESERVED, '_').replace(/\s+/g, ' ');
  name = name.replace(/^[\s.]+/, '').replace(/[\s.]+$/, '');
  if ([...name].length > MAX_NAME_CHARS) {
    const extension = extensionOf(name);
    const suffix = extension && extension.length <= 16 ? `.${extension}` : '';
    name =
      [...name]
        .slice(0, MAX_NAME_CHARS - suffix.length)
        .join('')
        .trimEnd() + suffix;
  }
  if (!name) name = 'attachment';
  if (kind && !extensionOf(name)) name = `${name}.${FILE_KINDS[kind].extensions[0]}`;
  return name;
}

// RFC 5987 attr-char: what may stand unencoded in filename*.
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<name>` (RFC 6266):
 * always a download, never rendered in the API's origin. The name is
 * sanitised already, so it holds no quote, backslash or line break.
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7E]/g, '_')
    .replace(RESERVED, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(fileName)}`;
}
