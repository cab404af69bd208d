import { Environment } from '@marcbachmann/cel-js';
import type { GovernedProduct } from '../catalog/product-directory.service';

/**
 * Policy rules are CEL over the variable `product`. Rules are type-checked
 * against the product schema below (unknown fields, wrong operand types and
 * non-boolean results are caught before anything is stored) and evaluated
 * against a plain map, which is several times faster than converting every
 * product into the checked type.
 */
const PERSON = 'list<map<string, string>>';
const checker = new Environment({ limits: { maxAstNodes: 2_000, maxDepth: 100 } }).registerVariable({
  name: 'product',
  schema: {
    id: 'string',
    name: 'string',
    // Nullable fields are dyn: `product.domain == null` and `product.domain == "finance"` both check.
    description: 'dyn',
    product_type: 'string',
    domain: 'dyn',
    tags: 'list<string>',
    criticality: 'dyn',
    sensitivity: 'dyn',
    maintenance_status: 'dyn',
    owners: PERSON,
    stewards: PERSON,
    sla_freshness_minutes: 'dyn',
    attributes: 'map<string, dyn>',
    created_at: 'google.protobuf.Timestamp',
    updated_at: 'google.protobuf.Timestamp',
    open_incident_count: 'int',
  },
});
const evaluator = new Environment({ limits: { maxAstNodes: 2_000, maxDepth: 100 } }).registerVariable(
  'product',
  'map',
);

export interface RuleProblem {
  message: string;
  /** 0-based offset into the expression. */
  position: number;
  line: number;
  column: number;
}

/** Null when the rule is valid CEL that evaluates to a boolean, else what is wrong and where. */
export function checkRule(expression: string): RuleProblem | null {
  const result = checker.check(expression);
  if (result.valid) {
    // `dyn` (e.g. `product.attributes.reviewed`) may be a boolean at run time; anything else is not.
    if (result.type === 'bool' || result.type === 'dyn') return null;
    return locate(expression, 0, `the rule must evaluate to a boolean, not ${result.type}`);
  }
  const error = result.error as
    { message: string; range?: { start: number }; node?: { pos?: number } } | undefined;
  const position = error?.range?.start ?? error?.node?.pos ?? 0;
  return locate(expression, position, firstLine(error?.message ?? 'invalid expression'));
}

export type RuleOutcome =
  | { status: 'compliant'; message: null }
  | { status: 'non_compliant'; message: string }
  | { status: 'error'; message: string };

/** A compiled rule; `evaluate` never throws: run-time failures are an `error` outcome. */
export interface CompiledRule {
  evaluate(product: CelProduct): RuleOutcome;
}

/** Compiles a rule that passed `checkRule`. */
export function compileRule(expression: string, violationMessage: string): CompiledRule {
  const program = evaluator.parse(expression);
  return {
    evaluate(product) {
      let value: unknown;
      try {
        value = program({ product });
      } catch (error) {
        return {
          status: 'error',
          message: `Evaluation failed: ${firstLine(error instanceof Error ? error.message : String(error))}`,
        };
      }
      if (value === true) return { status: 'compliant', message: null };
      if (value === false) return { status: 'non_compliant', message: violationMessage };
      return { status: 'error', message: `The rule evaluated to ${describe(value)}, not a boolean.` };
    },
  };
}

/** The value `product` has in a rule: CEL integers are BigInt, timestamps Dates. */
export type CelProduct = Record<string, unknown>;

export function toCelProduct(product: GovernedProduct, openIncidentCount: number): CelProduct {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    product_type: product.product_type,
    domain: product.domain,
    tags: product.tags,
    criticality: product.criticality,
    sensitivity: product.sensitivity,
    maintenance_status: product.maintenance_status,
    owners: product.owners,
    stewards: product.stewards,
    sla_freshness_minutes:
      product.sla_freshness_minutes === null ? null : BigInt(product.sla_freshness_minutes),
    attributes: product.attributes,
    created_at: product.created_at,
    updated_at: product.updated_at,
    open_incident_count: BigInt(openIncidentCount),
  };
}

function locate(expression: string, position: number, message: string): RuleProblem {
  const before = expression.slice(0, position).split('\n');
  return { message, position, line: before.length, column: before[before.length - 1].length + 1 };
}

function firstLine(message: string): string {
  return message.split('\n')[0].trim();
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint' || typeof value === 'number') return 'a number';
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value)) return 'a list';
  return 'a map';
}
