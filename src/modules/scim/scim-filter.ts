import { ScimError } from './scim.errors';

/** RFC 7644 §3.4.2.2 filters, the subset identity providers send. */
export type ScimValue = string | boolean | number | null;

export type FilterNode =
  | { kind: 'compare'; attr: string; op: CompareOp; value: ScimValue }
  | { kind: 'present'; attr: string }
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; node: FilterNode };

export const COMPARE_OPS = ['eq', 'ne', 'co', 'sw', 'ew'] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];

const UNSUPPORTED_OPS = new Set(['gt', 'ge', 'lt', 'le']);
const MAX_FILTER_LENGTH = 2000;

type Token = { t: 'word'; v: string } | { t: 'string'; v: string } | { t: '(' } | { t: ')' };

function invalid(detail: string): ScimError {
  return new ScimError(400, `The filter is not valid: ${detail}`, 'invalidFilter');
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === '(' || c === ')') {
      tokens.push({ t: c });
      i++;
    } else if (c === '"') {
      // A JSON string: escapes as JSON defines them.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw invalid('a string is not closed.');
      try {
        tokens.push({ t: 'string', v: JSON.parse(text.slice(i, j + 1)) as string });
      } catch {
        throw invalid('a string has a bad escape.');
      }
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && !' \t()"'.includes(text[j])) {
        // A value path (`emails[type eq "work"].value`) is one word, spaces and quotes included.
        if (text[j] === '[') {
          let inString = false;
          while (j < text.length && (inString || text[j] !== ']')) {
            if (text[j] === '"') inString = !inString;
            else if (inString && text[j] === '\\') j++;
            j++;
          }
          if (j >= text.length) throw invalid('a "[" is not closed.');
        }
        j++;
      }
      tokens.push({ t: 'word', v: text.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

/** Parses a filter; throws a SCIM 400 `invalidFilter` naming what is wrong. */
export function parseFilter(text: string): FilterNode {
  if (text.length > MAX_FILTER_LENGTH) throw invalid(`it is longer than ${MAX_FILTER_LENGTH} characters.`);
  const tokens = tokenize(text);
  let pos = 0;
  const peekWord = (): string | undefined => {
    const token = tokens[pos];
    return token?.t === 'word' ? token.v.toLowerCase() : undefined;
  };

  const parseOr = (): FilterNode => {
    let node = parseAnd();
    while (peekWord() === 'or') {
      pos++;
      node = { kind: 'or', left: node, right: parseAnd() };
    }
    return node;
  };
  const parseAnd = (): FilterNode => {
    let node = parseAtom();
    while (peekWord() === 'and') {
      pos++;
      node = { kind: 'and', left: node, right: parseAtom() };
    }
    return node;
  };
  const parseAtom = (): FilterNode => {
    const token = tokens[pos];
    if (!token) throw invalid('it ends where an expression was expected.');
    if (token.t === '(') {
      pos++;
      const node = parseOr();
      if (tokens[pos]?.t !== ')') throw invalid('a parenthesis is not closed.');
      pos++;
      return node;
    }
    if (token.t === 'word' && token.v.toLowerCase() === 'not' && tokens[pos + 1]?.t === '(') {
      pos++;
      return { kind: 'not', node: parseAtom() };
    }
    if (token.t !== 'word') throw invalid('an attribute name was expected.');
    const attr = token.v;
    if (!/^[A-Za-z0-9:._$-]+(\[[^\]]+\](\.[A-Za-z0-9_$-]+)?)?$/.test(attr)) {
      throw invalid(`"${attr}" is not an attribute path.`);
    }
    pos++;
    const opToken = tokens[pos];
    if (opToken?.t !== 'word') throw invalid(`an operator was expected after "${attr}".`);
    const op = opToken.v.toLowerCase();
    pos++;
    if (op === 'pr') return { kind: 'present', attr };
    if (UNSUPPORTED_OPS.has(op)) throw invalid(`the operator "${op}" is not supported.`);
    if (!(COMPARE_OPS as readonly string[]).includes(op)) throw invalid(`"${opToken.v}" is not an operator.`);
    const valueToken = tokens[pos];
    if (!valueToken || valueToken.t === '(' || valueToken.t === ')') {
      throw invalid(`a value was expected after "${attr} ${op}".`);
    }
    pos++;
    return { kind: 'compare', attr, op: op as CompareOp, value: literal(valueToken) };
  };

  const node = parseOr();
  if (pos < tokens.length) throw invalid('there is text after the end of the expression.');
  return node;
}

function literal(token: Token & { v: string }): ScimValue {
  if (token.t === 'string') return token.v;
  const word = token.v.toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(token.v)) return Number(token.v);
  throw invalid(`"${token.v}" is not a value (strings are quoted).`);
}

/**
 * An attribute path lowercased, a value filter in it written one way:
 * `Emails[Type EQ "Work"].Value` → `emails[type eq "work"].value`.
 */
export function canonicalPath(attr: string): string {
  const bracket = /^([^[]+)\[(.+)\](.*)$/.exec(attr);
  if (!bracket) return attr.toLowerCase();
  const inner = parseFilter(bracket[2]);
  if (inner.kind !== 'compare' || typeof inner.value !== 'string') {
    throw invalid(`"${attr}": a value filter may only compare one attribute with a string.`);
  }
  const value = JSON.stringify(inner.value.toLowerCase());
  return `${bracket[1]}[${inner.attr} ${inner.op} ${value}]${bracket[3]}`.toLowerCase();
}

/** How one filterable attribute reads in SQL. */
export interface FilterColumn {
  sql: string;
  type: 'string' | 'boolean' | 'uuid';
  /** Stored lowercased (the email): compared as is, so its index serves `eq`. */
  lowercased?: boolean;
  /** Compared exactly (externalId, id), not case-insensitively. */
  caseExact?: boolean;
  /** Builds `eq` itself (given the lowercased value's parameter), where a plain comparison would miss an index. */
  eq?: (param: string) => string;
}

export interface CompiledFilter {
  sql: string;
  params: unknown[];
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Turns a parsed filter into a SQL condition over the given columns
 * (attribute names lowercased, without the schema URN), with positional
 * parameters numbered after `paramOffset`.
 */
export function compileFilter(
  node: FilterNode,
  columns: Record<string, FilterColumn>,
  schemaUrns: string[],
  paramOffset = 0,
): CompiledFilter {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${paramOffset + params.length}`;
  };
  const column = (attr: string): FilterColumn => {
    let name = canonicalPath(attr);
    for (const urn of schemaUrns) {
      if (name.startsWith(`${urn.toLowerCase()}:`)) name = name.slice(urn.length + 1);
    }
    const found = columns[name];
    if (!found) throw invalid(`the attribute "${attr}" cannot be filtered on.`);
    return found;
  };
  const walk = (n: FilterNode): string => {
    switch (n.kind) {
      case 'and':
      case 'or':
        return `(${walk(n.left)} ${n.kind.toUpperCase()} ${walk(n.right)})`;
      case 'not':
        return `NOT (${walk(n.node)})`;
      case 'present': {
        const col = column(n.attr);
        return col.type === 'string'
          ? `(${col.sql} IS NOT NULL AND ${col.sql} <> '')`
          : `${col.sql} IS NOT NULL`;
      }
      case 'compare':
        return compare(column(n.attr), n.op, n.value, n.attr);
    }
  };
  const compare = (col: FilterColumn, op: CompareOp, value: ScimValue, attr: string): string => {
    if (value === null) {
      if (op === 'eq') return `${col.sql} IS NULL`;
      if (op === 'ne') return `${col.sql} IS NOT NULL`;
      throw invalid(`"${op}" needs a string value.`);
    }
    if (col.type === 'boolean') {
      if (typeof value !== 'boolean' || (op !== 'eq' && op !== 'ne')) {
        throw invalid(`"${attr}" is a boolean: use eq or ne with true or false.`);
      }
      return `${col.sql} ${op === 'eq' ? '=' : 'IS DISTINCT FROM'} ${param(value)}`;
    }
    if (typeof value !== 'string') throw invalid(`"${attr}" takes a quoted string.`);
    if (col.type === 'uuid') {
      // A value that is no UUID simply matches nothing.
      if (op === 'eq' || op === 'ne') {
        return `${col.sql}::text ${op === 'eq' ? '=' : '<>'} ${param(value.toLowerCase())}`;
      }
    }
    const exact = col.caseExact || col.type === 'uuid';
    const target =
      exact || col.lowercased ? col.sql + (col.type === 'uuid' ? '::text' : '') : `lower(${col.sql})`;
    const text = exact ? value : value.toLowerCase();
    switch (op) {
      case 'eq':
        return col.eq && !exact ? col.eq(param(text)) : `${target} = ${param(text)}`;
      case 'ne':
        return `${target} IS DISTINCT FROM ${param(text)}`;
      case 'co':
        return `${target} LIKE ${param(`%${likeEscape(text)}%`)}`;
      case 'sw':
        return `${target} LIKE ${param(`${likeEscape(text)}%`)}`;
      case 'ew':
        return `${target} LIKE ${param(`%${likeEscape(text)}`)}`;
    }
  };
  return { sql: walk(node), params };
}
