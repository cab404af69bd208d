const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/**
 * A plain-text and an HTML part from the same paragraphs; an optional
 * call-to-action link is shown as a button in HTML and a bare URL in text.
 */
export function renderMail(
  paragraphs: string[],
  action?: { label: string; url: string },
): { text: string; html: string } {
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), '— Verity'].join(
    '\n\n',
  );
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const button = action
    ? `<p><a href="${escapeHtml(action.url)}" style="background:#2563eb;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>`
    : '';
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${body}${button}<p style="color:#6b7280">— Verity</p></body></html>`;
  return { text, html };
}
