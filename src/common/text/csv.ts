export type Cell = string | number | null;

/** A CSV line (RFC 4180 quoting); cells that a spreadsheet would run as formulas are defused with a leading quote. */
export function csvLine(cells: Cell[]): string {
  return (
    cells
      .map((cell) => {
        let text = cell === null ? '' : String(cell);
        if (/^[=+\-@\t\r]/.test(text) && typeof cell === 'string') text = `'${text}`;
        return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
      })
      .join(',') + '\r\n'
  );
}
