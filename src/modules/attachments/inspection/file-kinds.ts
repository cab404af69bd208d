/**
 * The kinds of file attachments may be (the specification's list), each
 * with the media type the API stores and serves, and the names and media
 * types a client may use for it. Legacy Office formats are the OLE compound
 * files (doc, xls, ppt); macro-enabled OOXML variants are not accepted.
 */
export const FILE_KINDS = {
  pdf: { label: 'PDF', mime: 'application/pdf', extensions: ['pdf'], claims: ['application/x-pdf'] },
  doc: { label: 'Word (97-2003)', mime: 'application/msword', extensions: ['doc', 'dot'], claims: [] },
  docx: {
    label: 'Word',
    mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extensions: ['docx'],
    claims: [],
  },
  xls: { label: 'Excel (97-2003)', mime: 'application/vnd.ms-excel', extensions: ['xls', 'xlt'], claims: [] },
  xlsx: {
    label: 'Excel',
    mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extensions: ['xlsx'],
    claims: [],
  },
  ppt: {
    label: 'PowerPoint (97-2003)',
    mime: 'application/vnd.ms-powerpoint',
    extensions: ['ppt', 'pps', 'pot'],
    claims: [],
  },
  pptx: {
    label: 'PowerPoint',
    mime: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extensions: ['pptx'],
    claims: [],
  },
  png: { label: 'PNG', mime: 'image/png', extensions: ['png'], claims: [] },
  jpeg: {
    label: 'JPEG',
    mime: 'image/jpeg',
    extensions: ['jpg', 'jpeg', 'jpe', 'jfif'],
    claims: ['image/pjpeg', 'image/jpg'],
  },
  gif: { label: 'GIF', mime: 'image/gif', extensions: ['gif'], claims: [] },
  svg: { label: 'SVG', mime: 'image/svg+xml', extensions: ['svg'], claims: [] },
  // Windows browsers send CSV files as application/vnd.ms-excel when Excel is installed.
  csv: {
    label: 'CSV',
    mime: 'text/csv',
    extensions: ['csv', 'tsv'],
    claims: [
      'application/csv',
      'text/x-csv',
      'text/comma-separated-values',
      'text/tab-separated-values',
      'application/vnd.ms-excel',
      'text/plain',
    ],
  },
  json: {
    label: 'JSON',
    mime: 'application/json',
    extensions: ['json'],
    claims: ['text/json', 'application/x-json', 'text/plain'],
  },
  xml: { label: 'XML', mime: 'application/xml', extensions: ['xml'], claims: ['text/xml', 'text/plain'] },
  parquet: {
    label: 'Parquet',
    mime: 'application/vnd.apache.parquet',
    extensions: ['parquet', 'parq'],
    claims: ['application/x-parquet'],
  },
  zip: {
    label: 'ZIP',
    mime: 'application/zip',
    extensions: ['zip'],
    claims: ['application/x-zip-compressed', 'application/x-zip', 'multipart/x-zip'],
  },
} as const satisfies Record<
  string,
  { label: string; mime: string; extensions: readonly string[]; claims: readonly string[] }
>;

export type FileKind = keyof typeof FILE_KINDS;

export const ACCEPTED_KINDS_SENTENCE =
  'PDF, Word, Excel, PowerPoint, PNG, JPEG, GIF, SVG, CSV, JSON, XML, Parquet or ZIP';

/** Media types that claim nothing (a client that does not know the type). */
const GENERIC_MIMES = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/unknown',
  'application/x-unknown',
  'application/binary',
]);

/** Names that claim a kind of file no attachment may be, whatever the content says. */
const FOREIGN_EXTENSIONS = new Set([
  'exe',
  'dll',
  'com',
  'scr',
  'msi',
  'bat',
  'cmd',
  'ps1',
  'sh',
  'js',
  'mjs',
  'vbs',
  'jar',
  'apk',
  'html',
  'htm',
  'xhtml',
  'shtml',
  'php',
  'svgz',
  'docm',
  'xlsm',
  'pptm',
  'hta',
]);

export function extensionOf(fileName: string): string | null {
  const dot = fileName.lastIndexOf('.');
  if (dot <= 0 || dot === fileName.length - 1) return null;
  return fileName.slice(dot + 1).toLowerCase();
}

function kindOfExtension(extension: string): FileKind | null {
  for (const [kind, info] of Object.entries(FILE_KINDS)) {
    if ((info.extensions as readonly string[]).includes(extension)) return kind as FileKind;
  }
  return null;
}

export function baseMime(mime: string | undefined | null): string {
  return (mime ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Why the client's claim (part media type, file name) contradicts the kind
 * the content turned out to be, or null when it does not. A generic media
 * type or an unknown extension claims nothing.
 */
export function claimMismatch(kind: FileKind, fileName: string, claimedMime: string): string | null {
  const info = FILE_KINDS[kind];
  const extension = extensionOf(fileName);
  if (extension) {
    const named = kindOfExtension(extension);
    if ((named && named !== kind) || FOREIGN_EXTENSIONS.has(extension)) {
      return `The file is named .${extension} but its content is ${info.label}.`;
    }
  }
  const mime = baseMime(claimedMime);
  if (!GENERIC_MIMES.has(mime) && mime !== info.mime && !(info.claims as readonly string[]).includes(mime)) {
    return `The file was sent as ${mime} but its content is ${info.label}.`;
  }
  return null;
}
