import { csvLine } from '../../common/text/csv';
import { renderHtml, renderText, ReportContent } from './report-render';

const content: ReportContent = {
  title: 'Risk register',
  summary: [['Risks', 2]],
  columns: ['Title', 'Tier'],
  rows: [
    ['<script>alert(1)</script>', 'high'],
    ['A & B "quoted"', null],
  ],
  totalRows: 3,
  data: {},
};

describe('report rendering', () => {
  it('escapes every user value in HTML', () => {
    const html = renderHtml(content, new Date('2030-01-01T00:00:00Z'), 'Team <b>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('A &amp; B &quot;quoted&quot;');
    expect(html).toContain('Team &lt;b&gt;');
    expect(html).toContain('1 more in the attached CSV');
  });

  it('renders plain text with the summary and rows', () => {
    const text = renderText(content, new Date('2030-01-01T00:00:00Z'), 'Team');
    expect(text).toContain('Risks: 2');
    expect(text).toContain('<script>alert(1)</script> | high');
    expect(text).toContain('A & B "quoted" | —');
  });

  it('quotes CSV cells and defuses formulas', () => {
    expect(csvLine(['a', 'b,c', 'say "hi"', null, 3])).toBe('a,"b,c","say ""hi""",,3\r\n');
    expect(csvLine(['=HYPERLINK("x")', '-1', '+cmd', '@sum'])).toBe(
      `"'=HYPERLINK(""x"")",'-1,'+cmd,'@sum\r\n`,
    );
    expect(csvLine([-1])).toBe('-1\r\n');
    expect(csvLine(['line\nbreak'])).toBe('"line\nbreak"\r\n');
  });
});
