import { Environment } from '@marcbachmann/cel-js';
import type { ASTNode } from '@marcbachmann/cel-js';
import {
  GOVERNED_PRODUCT_COLUMNS,
  GovernedProductJoin,
  governedPeopleCountSql,
  governedPeopleSql,
} from '../catalog/catalog.contract';
import { openIncidentCountSql } from '../quality/quality.contract';

/**
 * Compiles the part of CEL that has an exact SQL equivalent into a boolean SQL
 * expression over the product `p` (docs/decisions.md, "Policies compiled to
 * SQL"). The expression is TRUE where the rule holds, FALSE where it does not,
 * and NULL where SQL cannot decide what the batched evaluator would answer: a
 * CEL error (null operands, missing attribute keys, wrong dynamic types), a
 * value near a precision edge. Those products go to the batched evaluator, so
 * both paths give the same outcomes. SQL's three-valued AND/OR/NOT absorb an
 * undecided side exactly where CEL's commutative && and || absorb an error.
 * Values are bind parameters; nothing from the rule is spliced into SQL.
 * `compileRuleToSql` answers null for anything outside the subset: the whole
 * rule then stays with the batched evaluator.
 */
export interface RuleSql {
  /** A boolean SQL expression over `p` and the joins. */
  expression: string;
  /** Bind values of `$<firstParam>`, `$<firstParam + 1>`, ... */
  params: unknown[];
  /** The read model's joins the expression reads. */
  joins: GovernedProductJoin[];
}

type Kind = 'bool' | 'int' | 'double' | 'string' | 'timestamp' | 'tags' | 'people' | 'person' | 'attr';

interface Sql {
  sql: string;
  kind: Kind;
  /**
   * SQL NULL stands for CEL null (a nullable column read as is); otherwise
   * NULL means undecided.
   */
  nullable: boolean;
}

type Constant = { value: unknown };

class Unsupported extends Error {}

const folder = new Environment({ limits: { maxAstNodes: 2_000, maxDepth: 100 } });

/** The product fields (rules see `product.<field>`) and how SQL reads them. */
const FIELDS: Record<string, { kind: Kind; nullable: boolean }> = {
  id: { kind: 'string', nullable: false },
  name: { kind: 'string', nullable: false },
  description: { kind: 'string', nullable: true },
  product_type: { kind: 'string', nullable: false },
  domain: { kind: 'string', nullable: true },
  tags: { kind: 'tags', nullable: false },
  criticality: { kind: 'string', nullable: true },
  sensitivity: { kind: 'string', nullable: true },
  maintenance_status: { kind: 'string', nullable: true },
  owners: { kind: 'people', nullable: false },
  stewards: { kind: 'people', nullable: false },
  sla_freshness_minutes: { kind: 'int', nullable: true },
  attributes: { kind: 'attr', nullable: false },
  created_at: { kind: 'timestamp', nullable: false },
  updated_at: { kind: 'timestamp', nullable: false },
  open_incident_count: { kind: 'int', nullable: false },
};

const PERSON_FIELDS = new Set(['id', 'email', 'full_name']);
const COMPARISONS: Record<string, string> = {
  '==': '=',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};
const MIRRORED: Record<string, string> = {
  '==': '==',
  '!=': '!=',
  '<': '>',
  '<=': '>=',
  '>': '<',
  '>=': '<=',
};
/** JSON numbers this short parse to the same double in JavaScript and PostgreSQL, and never overflow. */
const MAX_EXACT_NUMBER_TEXT = 15;
/** Patterns made of these mean the same under JavaScript's RegExp and PostgreSQL's `~` in the C collation. */
const SAFE_PATTERN = /^\^?(?:(?:[A-Za-z0-9 _@,:-]|\[(?:[A-Za-z0-9](?:-[A-Za-z0-9])?)+\])[*+?]?)*\$?$/;
const SAFE_INT = 2n ** 53n;
const MAX_SQL_LENGTH = 100_000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The rule as SQL over `p`, with its parameters numbered from `firstParam`; null when it is outside the subset. */
export function compileRuleToSql(expression: string, firstParam: number): RuleSql | null {
  let ast: ASTNode;
  try {
    ast = (folder.parse(expression) as unknown as { ast: ASTNode }).ast;
  } catch {
    return null;
  }
  const compiler = new Compiler(firstParam);
  try {
    const root = compiler.compile(ast, new Map());
    const expressionSql = compiler.asBool(root);
    // Attribute paths repeat their base: a pathologically deep rule stays with the evaluator.
    if (expressionSql.length > MAX_SQL_LENGTH) return null;
    return { expression: expressionSql, params: compiler.params, joins: [...compiler.joins] };
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

class Compiler {
  readonly params: unknown[] = [];
  readonly joins = new Set<GovernedProductJoin>();
  private aliases = 0;

  constructor(private readonly firstParam: number) {}

  compile(node: ASTNode, scope: Map<string, Sql>): Sql {
    const constant = this.constant(node);
    if (constant) return this.literal(constant.value);
    switch (node.op) {
      case '&&':
      case '||': {
        const [left, right] = node.args as [ASTNode, ASTNode];
        const op = node.op === '&&' ? 'AND' : 'OR';
        return bool(
          `(${this.asBool(this.compile(left, scope))} ${op} ${this.asBool(this.compile(right, scope))})`,
        );
      }
      case '!_':
        return bool(`(NOT ${this.asBool(this.compile(node.args as ASTNode, scope))})`);
      case '?:': {
        const [condition, then, otherwise] = (node.args as ASTNode[]).map((a) =>
          this.asBool(this.compile(a, scope)),
        );
        // The simple CASE reads the condition once; NULL (undecided) matches neither arm.
        return bool(`(CASE ${condition} WHEN true THEN ${then} WHEN false THEN ${otherwise} END)`);
      }
      case '==':
      case '!=':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.comparison(node.op, node.args as [ASTNode, ASTNode], scope);
      case 'in':
        return this.membership(node.args as [ASTNode, ASTNode], scope);
      case 'id': {
        const bound = scope.get(node.args as string);
        if (!bound) throw new Unsupported();
        return bound;
      }
      case '.':
        return this.field(node.args as [ASTNode, string], scope);
      case 'call':
        return this.call(node.args as [string, ASTNode[]], scope);
      case 'rcall':
        return this.method(node.args as [string, ASTNode, ASTNode[]], scope);
      default:
        throw new Unsupported();
    }
  }

  /** The value as a boolean; an attribute that is not a JSON boolean is undecided (CEL errors on it). */
  asBool(value: Sql): string {
    if (value.kind === 'bool') return value.sql;
    if (value.kind === 'attr')
      return `(CASE WHEN jsonb_typeof(${value.sql}) = 'boolean' THEN (${value.sql})::boolean END)`;
    throw new Unsupported();
  }

  /** A subtree without variables, evaluated by CEL itself (literals, `-1`, `timestamp("...")`, lists). */
  private constant(node: ASTNode): Constant | null {
    if (hasVariable(node)) return null;
    try {
      return { value: folder.evaluate(node.input.slice(node.start, node.end)) };
    } catch {
      throw new Unsupported();
    }
  }

  private literal(value: unknown): Sql {
    if (typeof value === 'boolean')
      return { sql: `${this.param(value)}::boolean`, kind: 'bool', nullable: false };
    if (typeof value === 'string')
      return { sql: `${this.param(safeString(value))}::text`, kind: 'string', nullable: false };
    if (typeof value === 'bigint')
      return { sql: `${this.param(value.toString())}::bigint`, kind: 'int', nullable: false };
    if (typeof value === 'number' && Number.isFinite(value))
      return { sql: `${this.param(value)}::float8`, kind: 'double', nullable: false };
    // Years 1 to 9999 only: PostgreSQL reads no other ISO form CEL can write.
    if (value instanceof Date && value.getUTCFullYear() >= 1 && value.getUTCFullYear() <= 9999)
      return { sql: `${this.param(value.toISOString())}::timestamptz`, kind: 'timestamp', nullable: false };
    throw new Unsupported();
  }

  private param(value: unknown): string {
    this.params.push(value);
    return `$${this.firstParam + this.params.length - 1}`;
  }

  private field([target, name]: [ASTNode, string], scope: Map<string, Sql>): Sql {
    if (target.op === 'id' && target.args === 'product' && !scope.has('product')) {
      const field = FIELDS[name];
      if (!field) throw new Unsupported();
      if (name === 'owners' || name === 'stewards') return { sql: name, kind: 'people', nullable: false };
      if (name === 'open_incident_count')
        return { sql: openIncidentCountSql('p.id'), kind: 'int', nullable: false };
      const column = GOVERNED_PRODUCT_COLUMNS[name];
      if (column.join) this.joins.add(column.join);
      return { sql: column.sql, kind: field.kind, nullable: field.nullable };
    }
    const base = this.compile(target, scope);
    if (base.kind === 'person') {
      if (!PERSON_FIELDS.has(name)) throw new Unsupported();
      return { sql: `${base.sql}.${name}`, kind: 'string', nullable: false };
    }
    if (base.kind === 'attr') {
      // A missing key is a CEL error, so NULL (undecided) is right for it.
      return {
        sql: `(CASE WHEN jsonb_typeof(${base.sql}) = 'object' THEN ${base.sql} -> ${this.param(name)}::text END)`,
        kind: 'attr',
        nullable: false,
      };
    }
    throw new Unsupported();
  }

  private comparison(op: string, [leftNode, rightNode]: [ASTNode, ASTNode], scope: Map<string, Sql>): Sql {
    let left = leftNode;
    let right = rightNode;
    if (!this.constant(right)) {
      if (!this.constant(left)) throw new Unsupported();
      [left, right] = [right, left];
      op = MIRRORED[op];
    }
    const value = this.constant(right)!.value;
    const subject = this.compile(left, scope);
    const equality = op === '==' || op === '!=';
    if (value === null) {
      if (!equality) throw new Unsupported();
      const isNull = this.isNull(subject);
      return bool(op === '==' ? isNull : `(NOT ${isNull})`);
    }
    if (subject.kind === 'attr') return this.attributeComparison(op, subject.sql, value);
    const other = this.literal(value);
    if (subject.kind === 'int' && other.kind === 'double')
      return this.compare(op, { ...subject, sql: `(${subject.sql})::float8` }, other);
    if (subject.kind !== other.kind || (subject.kind === 'bool' && !equality)) throw new Unsupported();
    if (subject.kind === 'string' && !equality) {
      // CEL orders strings by UTF-16 code unit, PostgreSQL's "C" collation by code point: they agree
      // unless the literal holds characters from U+D800 up.
      if (/[\uD800-\uFFFF]/.test(value as string)) throw new Unsupported();
      return this.compare(op, { ...subject, sql: `(${subject.sql}) COLLATE "C"` }, other);
    }
    if (subject.kind === 'timestamp' && !equality) {
      // Rows keep microseconds, the evaluator sees milliseconds: within 2 ms of the literal is undecided.
      return bool(
        `(CASE WHEN ${subject.sql} BETWEEN ${other.sql} - interval '2 milliseconds' AND ${other.sql} + interval '2 milliseconds' THEN NULL ELSE ${subject.sql} ${COMPARISONS[op]} ${other.sql} END)`,
      );
    }
    if (subject.kind === 'timestamp') throw new Unsupported();
    return this.compare(op, subject, other);
  }

  private compare(op: string, subject: Sql, other: Sql): Sql {
    if (subject.nullable && (op === '==' || op === '!=')) {
      // CEL: null == "x" is false, null != "x" is true.
      return bool(
        `(${subject.sql} ${op === '==' ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM'} ${other.sql})`,
      );
    }
    return bool(`(${subject.sql} ${COMPARISONS[op]} ${other.sql})`);
  }

  private isNull(subject: Sql): string {
    if (subject.nullable) return `(${subject.sql} IS NULL)`;
    if (subject.kind === 'attr') return `(jsonb_typeof(${subject.sql}) = 'null')`;
    if (subject.kind === 'string' || subject.kind === 'int' || subject.kind === 'bool')
      return `(CASE WHEN ${subject.sql} IS NOT NULL THEN false END)`;
    throw new Unsupported();
  }

  /** Compares a JSON attribute when its JSON type makes the answer certain; undecided otherwise. */
  private attributeComparison(op: string, json: string, value: unknown): Sql {
    const operator = COMPARISONS[op];
    if (typeof value === 'bigint' || typeof value === 'number') {
      if (typeof value === 'bigint' && (value >= SAFE_INT || value <= -SAFE_INT)) throw new Unsupported();
      const number = this.param(Number(value));
      return bool(
        `(CASE WHEN jsonb_typeof(${json}) = 'number' AND length((${json})::text) <= ${MAX_EXACT_NUMBER_TEXT} THEN ((${json})::text)::float8 ${operator} ${number}::float8 END)`,
      );
    }
    if (typeof value === 'string') {
      const text = `(${json}) #>> '{}'`;
      if (op !== '==' && op !== '!=') {
        if (/[\uD800-\uFFFF]/.test(value)) throw new Unsupported();
        return bool(
          `(CASE WHEN jsonb_typeof(${json}) = 'string' THEN (${text}) COLLATE "C" ${operator} ${this.param(safeString(value))}::text END)`,
        );
      }
      return bool(
        `(CASE WHEN jsonb_typeof(${json}) = 'string' THEN ${text} ${operator} ${this.param(safeString(value))}::text END)`,
      );
    }
    if (typeof value === 'boolean' && (op === '==' || op === '!=')) {
      return bool(
        `(CASE WHEN jsonb_typeof(${json}) = 'boolean' THEN (${json})::boolean ${operator} ${this.param(value)}::boolean END)`,
      );
    }
    throw new Unsupported();
  }

  private membership([elementNode, listNode]: [ASTNode, ASTNode], scope: Map<string, Sql>): Sql {
    const element = this.constant(elementNode);
    if (element) {
      const list = this.compile(listNode, scope);
      if (list.kind !== 'tags' || typeof element.value !== 'string') throw new Unsupported();
      return bool(`(${this.param(safeString(element.value))}::text = ANY(${list.sql}))`);
    }
    const list = this.constant(listNode);
    if (!list || !Array.isArray(list.value)) throw new Unsupported();
    const subject = this.compile(elementNode, scope);
    const values = list.value as unknown[];
    let any: string;
    if (subject.kind === 'string' && values.every((v) => typeof v === 'string')) {
      any = `${subject.sql} = ANY(${this.param(values.map((v) => safeString(v as string)))}::text[])`;
    } else if (subject.kind === 'int' && values.every((v) => typeof v === 'bigint')) {
      any = `${subject.sql} = ANY(${this.param(values.map((v) => (v as bigint).toString()))}::bigint[])`;
    } else {
      throw new Unsupported();
    }
    // CEL: null in ["a"] is false.
    return bool(subject.nullable ? `COALESCE(${any}, false)` : `(${any})`);
  }

  private call([name, args]: [string, ASTNode[]], scope: Map<string, Sql>): Sql {
    if (name === 'size' && args.length === 1) return this.size(this.compile(args[0], scope));
    if (name === 'has' && args.length === 1 && args[0].op === '.') {
      const [target, key] = args[0].args as [ASTNode, string];
      if (target.op === 'id' && target.args === 'product' && !scope.has('product')) {
        if (!FIELDS[key]) throw new Unsupported();
        return bool('true');
      }
      const base = this.compile(target, scope);
      if (base.kind === 'person') return bool(PERSON_FIELDS.has(key) ? 'true' : 'false');
      if (base.kind === 'attr')
        return bool(
          `(CASE WHEN jsonb_typeof(${base.sql}) = 'object' THEN ${base.sql} ? ${this.param(key)}::text END)`,
        );
    }
    throw new Unsupported();
  }

  private method([name, targetNode, args]: [string, ASTNode, ASTNode[]], scope: Map<string, Sql>): Sql {
    if ((name === 'exists' || name === 'all') && args.length === 2 && args[0].op === 'id') {
      return this.quantifier(name, targetNode, args[0].args as string, args[1], scope);
    }
    const target = this.compile(targetNode, scope);
    if (name === 'size' && !args.length) return this.size(target);
    if (target.kind !== 'string') throw new Unsupported();
    if ((name === 'lowerAscii' || name === 'upperAscii') && !args.length) {
      // JavaScript lowers every script; the "C" collation only ASCII: decided for ASCII strings only.
      const fn = name === 'lowerAscii' ? 'lower' : 'upper';
      return {
        sql: `(CASE WHEN ${target.sql} ~ ${this.param('^[\u0001-\u007f]*$')}::text THEN ${fn}(${target.sql} COLLATE "C") END)`,
        kind: 'string',
        nullable: false,
      };
    }
    if (args.length !== 1) throw new Unsupported();
    const argument = this.constant(args[0]);
    if (!argument || typeof argument.value !== 'string') throw new Unsupported();
    const text = safeString(argument.value);
    switch (name) {
      case 'startsWith':
        return bool(`starts_with(${target.sql}, ${this.param(text)}::text)`);
      case 'endsWith': {
        const suffix = this.param(text);
        return bool(`(right(${target.sql}, char_length(${suffix}::text)) = ${suffix}::text)`);
      }
      case 'contains':
        return bool(`(strpos(${target.sql}, ${this.param(text)}::text) > 0)`);
      case 'matches':
        if (!SAFE_PATTERN.test(text) || !validPattern(text)) throw new Unsupported();
        return bool(`((${target.sql}) COLLATE "C" ~ ${this.param(text)}::text)`);
      default:
        throw new Unsupported();
    }
  }

  /**
   * `exists` and `all` over tags or people: CEL's `exists` is true when any
   * element is, false when every element is false, an error otherwise (`all`
   * the other way round), which is what the counts below say.
   */
  private quantifier(
    name: 'exists' | 'all',
    targetNode: ASTNode,
    variable: string,
    body: ASTNode,
    scope: Map<string, Sql>,
  ): Sql {
    const target = this.compile(targetNode, scope);
    const alias = `q${this.aliases++}`;
    let from: string;
    let element: Sql;
    if (target.kind === 'tags') {
      from = `unnest(${target.sql}) AS ${alias}(v)`;
      element = { sql: `${alias}.v`, kind: 'string', nullable: false };
    } else if (target.kind === 'people') {
      from = `(${governedPeopleSql('p.id', target.sql === 'owners' ? 'owner' : 'steward')}) AS ${alias}`;
      element = { sql: alias, kind: 'person', nullable: false };
    } else {
      throw new Unsupported();
    }
    const inner = new Map(scope);
    inner.set(variable, element);
    const b = this.asBool(this.compile(body, inner));
    const decided =
      name === 'exists'
        ? `CASE WHEN bool_or(b) THEN true WHEN count(*) = count(b) THEN false END`
        : `CASE WHEN bool_or(NOT b) THEN false WHEN count(*) = count(b) THEN true END`;
    return bool(`(SELECT ${decided} FROM (SELECT ${b} AS b FROM ${from}) AS ${alias}_b)`);
  }

  private size(target: Sql): Sql {
    if (target.kind === 'string')
      return { sql: `char_length(${target.sql})::bigint`, kind: 'int', nullable: false };
    if (target.kind === 'tags')
      return { sql: `cardinality(${target.sql})::bigint`, kind: 'int', nullable: false };
    if (target.kind === 'people') {
      const role = target.sql === 'owners' ? 'owner' : 'steward';
      return {
        sql: `(${governedPeopleCountSql('p.id', role)})`,
        kind: 'int',
        nullable: false,
      };
    }
    throw new Unsupported();
  }
}

function bool(sql: string): Sql {
  return { sql, kind: 'bool', nullable: false };
}

/** PostgreSQL text holds neither NUL nor lone surrogates: such literals stay with the evaluator. */
function safeString(value: string): string {
  if (value.includes('\u0000') || LONE_SURROGATE.test(value)) throw new Unsupported();
  return value;
}

function hasVariable(node: ASTNode): boolean {
  if (node.op === 'id') return true;
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(visit);
    if (value && typeof value === 'object' && 'op' in value && 'args' in value)
      return hasVariable(value as ASTNode);
    return false;
  };
  return visit(node.args);
}

/** A range out of order (`[z-a]`) fails in both engines, at run time: the evaluator reports it. */
function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
