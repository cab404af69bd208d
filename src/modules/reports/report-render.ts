import type { Cell } from '../../common/text/csv';
import { escapeHtml } from '../../platform/mail/templates';

/** What every report type produces, before rendering. */
export interface ReportContent {
  title: string;
  /** Headline figures, in order. */
  summary: [string, Cell][];
  columns: string[];
  /** Rows shown in the mail body (the CSV attachment holds them all). */
  rows: Cell[][];
  /** How many rows exist in all (the body may show fewer). */
  totalRows: number;
  data: Record<string, unknown>;
}

export const BODY_ROWS = 100;

export function renderText(content: ReportContent, generatedAt: Date, heading: string): string {
  const lines = [`${content.title} — ${heading}`, `Generated ${generatedAt.toISOString()}`, ''];
  for (const [label, value] of content.summary) lines.push(`${label}: ${value ?? '—'}`);
  if (content.columns.length) {
    lines.push('', content.columns.join(' | '));
    for (const row of content.rows) lines.push(row.map((c) => c ?? '—').join(' | '));
    if (content.totalRows > content.rows.length) {
      lines.push(`… and ${content.totalRows - content.rows.length} more in the attached CSV.`);
    }
    if (!content.totalRows) lines.push('(nothing to report)');
  }
  lines.push('', '— Verity');
  return lines.join('\n');
}

export function renderHtml(content: ReportContent, generatedAt: Date, heading: string): string {
  const esc = (cell: Cell) => (cell === null ? '—' : escapeHtml(String(cell)));
  const summary = content.summary
    .map(([label, value]) => `<tr><th align="left">${esc(label)}</th><td>${esc(value)}</td></tr>`)
    .join('');
  const head = content.columns.map((c) => `<th align="left">${esc(c)}</th>`).join('');
  const body = content.rows
    .map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('');
  const more =
    content.totalRows > content.rows.length
      ? `<p>… and ${content.totalRows - content.rows.length} more in the attached CSV.</p>`
      : '';
  const table = content.columns.length
    ? content.totalRows
      ? `<table cellpadding="4" style="border-collapse:collapse"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>${more}`
      : '<p>Nothing to report.</p>'
    : '';
  return (
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    `<h1 style="font-size:20px">${esc(content.title)} — ${esc(heading)}</h1>` +
    `<p style="color:#6b7280">Generated ${esc(generatedAt.toISOString())}</p>` +
    `<table cellpadding="4">${summary}</table>${table}<p style="color:#6b7280">— Verity</p></body></html>`
  );
}
