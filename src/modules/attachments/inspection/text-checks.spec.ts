import { CsvChecker, JsonChecker, TextChecker, TextShapeError, XmlChecker } from './text-checks';

function run(checker: TextChecker, text: string, chunk = 1): void {
  for (let i = 0; i < text.length; i += chunk) checker.write(text.slice(i, i + chunk));
  checker.end();
}

const valid = (make: () => TextChecker, text: string) => {
  for (const chunk of [1, 3, text.length || 1]) expect(() => run(make(), text, chunk)).not.toThrow();
};
const invalid = (make: () => TextChecker, text: string, why: RegExp) => {
  for (const chunk of [1, 4, text.length || 1]) {
    expect(() => run(make(), text, chunk)).toThrow(TextShapeError);
    expect(() => run(make(), text, chunk)).toThrow(why);
  }
};

describe('JsonChecker', () => {
  const json = () => new JsonChecker();

  it.each([
    '{}',
    '[]',
    ' {"a": [1, -2.5e+10, 0, 0.5, true, false, null, "x\\n\\u00e9\\"", {}], "b": {"c": []}} ',
    '"just a string"',
    '42',
    '[[[[]]]]',
  ])('accepts %s', (text) => valid(json, text));

  it.each([
    ['{', /ends before/],
    ['{"a" 1}', /missing colon/],
    ['{a: 1}', /key that is not a string/],
    ['[1, 2,]', /unexpected "]"/],
    ['[01]', /invalid value "01"/],
    ['[tru]', /invalid value "tru"/],
    ['["a\\x"]', /invalid escape/],
    ['["\\u12G4"]', /invalid \\u escape/],
    ['["tab\there"]', /control character/],
    ['{"a": 1}}', /text after/],
    ['[1] [2]', /text after/],
    ['{"a": "unterminated', /inside a string/],
    ['', /ends before/],
  ])('refuses %s', (text, why) => invalid(json, text, why));

  it('refuses nesting deeper than 512 levels', () => {
    invalid(json, '['.repeat(600), /nesting deeper/);
  });
});

describe('XmlChecker', () => {
  const xml = () => new XmlChecker();

  it.each([
    '<a/>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE note [<!ENTITY x "y">]>\n<note a="1" b=\'>\'><to>T&amp;</to><![CDATA[ <not> ]]><!-- c --></note>\n<!-- after -->',
    '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:rect/></svg:svg>',
  ])('accepts %s', (text) => valid(xml, text));

  it('reports the root element and the DOCTYPE name', () => {
    const checker = xml();
    run(checker, '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd"><svg width="1"><g/></svg>');
    expect(checker.rootName).toBe('svg');
    expect(checker.doctypeName).toBe('svg');
  });

  it.each([
    ['', /no root element/],
    ['hello', /text before the root/],
    ['<a></a><b/>', /second root/],
    ['<a></a> tail', /text after the root/],
    ['<a><b></a></b>', /closes <b>/],
    ['<a>', /never closed/],
    ['<a b="1></a>', /inside an attribute value|inside markup/],
    ['<a><!-- open</a>', /inside markup/],
    ['<a>< b/></a>', /followed by " "/],
    ['</a>', /closes nothing/],
    ['<![CDATA[x]]><a/>', /CDATA outside/],
    ['<a/><!DOCTYPE a>', /DOCTYPE after/],
    ['<!FOO><a/>', /unknown declaration/],
  ])('refuses %s', (text, why) => invalid(xml, text, why));
});

describe('CsvChecker', () => {
  const csv = () => new CsvChecker();

  it.each([
    'a,b\n1,2\n',
    'a,b\r\n1,2\r\n3,4',
    'a;b;c\n1;2;3\n',
    'a\tb\n1\t2\n',
    'a|b\n1|2\n',
    'name,notes\nx,"multi\nline, with comma"\ny,"say ""hi"""\n',
    'a,b\n\n1,2\n\n',
    'only,header',
  ])('accepts %j', (text) => valid(csv, text));

  it('picks the delimiter the header uses most', () => {
    const checker = csv();
    run(checker, 'a;b;c,d\n1;2;3,4\n');
    expect(checker.delimiter).toBe(';');
    expect(checker.columns).toBe(3);
    expect(checker.records).toBe(2);
  });

  it.each([
    ['single column\nvalue\n', /single column/],
    ['a,b\n1,2,3\n', /3 fields where the header has 2/],
    ['a,b\n"open,2\n', /never closed/],
    ['a,b\n"x"y,2\n', /after the closing quote/],
    ['a,b\nx"y,2\n', /quote in the middle/],
    ['', /no header|single column/],
  ])('refuses %j', (text, why) => invalid(csv, text, why));
});
