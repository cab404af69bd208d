import { compileFilter, FilterColumn, parseFilter } from './scim-filter';
import { ScimError } from './scim.errors';

const COLUMNS: Record<string, FilterColumn> = {
  id: { sql: 'u.id', type: 'uuid' },
  username: { sql: 'u.email', type: 'string', lowercased: true },
  externalid: { sql: 'x.external_id', type: 'string', caseExact: true },
  'name.givenname': { sql: 'u.first_name', type: 'string' },
  active: { sql: 'u.is_active', type: 'boolean' },
  'emails[type eq "work"].value': { sql: 'u.email', type: 'string', lowercased: true },
  displayname: { sql: 'g.name', type: 'string', eq: (p) => `g.id IN (SELECT id FROM n WHERE k = ${p})` },
};
const URN = 'urn:ietf:params:scim:schemas:core:2.0:User';

const compile = (filter: string, offset = 0) => compileFilter(parseFilter(filter), COLUMNS, [URN], offset);

function scimTypeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as ScimError).scimType;
  }
  return 'no error';
}

describe('SCIM filter', () => {
  it('parses comparisons with case-insensitive operators and attribute names', () => {
    expect(parseFilter('userName EQ "Ada@Example.com"')).toEqual({
      kind: 'compare',
      attr: 'userName',
      op: 'eq',
      value: 'Ada@Example.com',
    });
    expect(compile('USERNAME eq "Ada@Example.com"')).toEqual({
      sql: 'u.email = $1',
      params: ['ada@example.com'],
    });
  });

  it('binds and tighter than or, and honours parentheses', () => {
    expect(compile('userName eq "a" or userName eq "b" and active eq true').sql).toBe(
      '(u.email = $1 OR (u.email = $2 AND u.is_active = $3))',
    );
    expect(compile('(userName eq "a" or userName eq "b") and active eq false')).toEqual({
      sql: '((u.email = $1 OR u.email = $2) AND u.is_active = $3)',
      params: ['a', 'b', false],
    });
  });

  it('compiles co, sw, ew with LIKE wildcards escaped, and case rules per attribute', () => {
    expect(compile('name.givenName co "50%_off"')).toEqual({
      sql: 'lower(u.first_name) LIKE $1',
      params: ['%50\\%\\_off%'],
    });
    expect(compile('userName sw "ADA"').params).toEqual(['ada%']);
    expect(compile('externalId ew "X1"')).toEqual({ sql: 'x.external_id LIKE $1', params: ['%X1'] });
    expect(compile('externalId eq "AbC"')).toEqual({ sql: 'x.external_id = $1', params: ['AbC'] });
  });

  it('strips the schema URN from attribute paths and numbers parameters after an offset', () => {
    expect(compile(`${URN}:userName eq "a"`, 2)).toEqual({ sql: 'u.email = $3', params: ['a'] });
  });

  it('handles pr, ne, not, null and JSON string escapes', () => {
    expect(compile('externalId pr').sql).toBe("(x.external_id IS NOT NULL AND x.external_id <> '')");
    expect(compile('externalId eq null').sql).toBe('x.external_id IS NULL');
    expect(compile('not (active eq true)').sql).toBe('NOT (u.is_active = $1)');
    expect(compile('userName ne "a"').sql).toBe('u.email IS DISTINCT FROM $1');
    expect(compile('userName eq "a \\"quoted\\" b"').params).toEqual(['a "quoted" b']);
    expect(compile('id eq "ABC"')).toEqual({ sql: 'u.id::text = $1', params: ['abc'] });
  });

  it('reads a value path with a filter as one attribute, written any way (Entra)', () => {
    expect(compile('emails[type eq "work"].value eq "Ada@Example.com"')).toEqual({
      sql: 'u.email = $1',
      params: ['ada@example.com'],
    });
    expect(compile(`${URN}:Emails[Type EQ "Work"].Value eq "a" and active eq true`)).toEqual({
      sql: '(u.email = $1 AND u.is_active = $2)',
      params: ['a', true],
    });
    expect(scimTypeOf(() => compile('emails[type eq "home"].value eq "a"'))).toBe('invalidFilter');
    expect(scimTypeOf(() => compile('emails[type eq "work" and primary eq true].value eq "a"'))).toBe(
      'invalidFilter',
    );
  });

  it('lets a column build its own eq, lowercased', () => {
    expect(compile('displayName eq "Data Team"')).toEqual({
      sql: 'g.id IN (SELECT id FROM n WHERE k = $1)',
      params: ['data team'],
    });
    expect(compile('displayName co "Team"').sql).toBe('lower(g.name) LIKE $1');
  });

  it.each([
    ['emails[type eq "work".value eq "a"', 'an unclosed bracket'],
    ['userName eq', 'a missing value'],
    ['userName', 'a missing operator'],
    ['userName zz "a"', 'an unknown operator'],
    ['userName gt "a"', 'an unsupported operator'],
    ['(userName eq "a"', 'an unclosed parenthesis'],
    ['userName eq "a', 'an unclosed string'],
    ['userName eq "a" userName eq "b"', 'trailing text'],
    ['userName eq bare', 'an unquoted string'],
    ['nosuch eq "a"', 'an unknown attribute'],
    ['active eq "yes"', 'a string for a boolean'],
    ['active co true', 'co on a boolean'],
    ['userName eq 5', 'a number for a string'],
    ['', 'an empty filter'],
  ])('refuses %s (%s) with invalidFilter', (filter) => {
    expect(scimTypeOf(() => compile(filter))).toBe('invalidFilter');
  });
});
