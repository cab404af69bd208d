import type { GovernedProduct } from '../catalog/product-directory.service';
import { checkRule, compileRule, toCelProduct } from './policy-rules';
import { POLICY_TEMPLATES } from './policy-templates';

const product: GovernedProduct = {
  id: '00000000-0000-4000-8000-000000000001',
  space_id: '00000000-0000-4000-8000-000000000002',
  name: 'orders',
  description: null,
  product_type: 'dataset',
  domain: 'finance',
  tags: ['pii'],
  criticality: 'critical',
  sensitivity: null,
  maintenance_status: null,
  owners: [{ id: 'u1', email: 'ada@example.test', full_name: 'Ada L' }],
  stewards: [],
  sla_freshness_minutes: 60,
  attributes: { retention_days: 30, reviewed: true, label: 'x' },
  created_at: new Date('2030-01-01T00:00:00Z'),
  updated_at: new Date('2030-01-02T00:00:00Z'),
};

const run = (rule: string, openIncidents = 0) =>
  compileRule(rule, 'violated').evaluate(toCelProduct(product, openIncidents));

describe('checkRule', () => {
  it('accepts boolean rules over the product read model', () => {
    for (const rule of [
      'size(product.owners) > 0',
      'product.owners.exists(o, o.email.endsWith("@example.test"))',
      'product.domain == "finance" && "pii" in product.tags',
      'product.sla_freshness_minutes != null && product.sla_freshness_minutes <= 60',
      'product.created_at < timestamp("2031-01-01T00:00:00Z")',
      'product.open_incident_count == 0',
      'product.attributes.reviewed',
    ]) {
      expect({ rule, problem: checkRule(rule) }).toEqual({ rule, problem: null });
    }
  });

  it('names the position of a syntax error', () => {
    expect(checkRule('size(product.owners) >')).toEqual(
      expect.objectContaining({ position: 22, line: 1, column: 23, message: expect.stringMatching(/EOF/) }),
    );
    expect(checkRule('product.name ==\n  && true')).toEqual(expect.objectContaining({ line: 2, column: 3 }));
  });

  it('rejects unknown fields, wrong types and non-boolean rules with a position', () => {
    expect(checkRule('product.nmae == "x"')).toEqual(
      expect.objectContaining({ position: 8, message: expect.stringMatching(/nmae/) }),
    );
    expect(checkRule('product.name + 1 == "x"')).not.toBeNull();
    expect(checkRule('product.name')).toEqual(
      expect.objectContaining({ position: 0, message: 'the rule must evaluate to a boolean, not string' }),
    );
    expect(checkRule('size(product.tags)')?.message).toMatch(/boolean, not int/);
    expect(checkRule('unknown_variable == 1')).not.toBeNull();
  });

  it('accepts every template', () => {
    for (const template of POLICY_TEMPLATES) {
      expect({ key: template.key, problem: checkRule(template.rule_expression) }).toEqual({
        key: template.key,
        problem: null,
      });
    }
  });
});

describe('compileRule', () => {
  it('answers compliant and non-compliant', () => {
    expect(run('size(product.owners) > 0')).toEqual({ status: 'compliant', message: null });
    expect(run('size(product.stewards) > 0')).toEqual({ status: 'non_compliant', message: 'violated' });
    expect(run('product.open_incident_count == 0', 2).status).toBe('non_compliant');
    expect(run('product.sla_freshness_minutes <= 60').status).toBe('compliant');
    expect(run('product.attributes.retention_days >= 30').status).toBe('compliant');
    expect(run('product.created_at < timestamp("2031-01-01T00:00:00Z")').status).toBe('compliant');
  });

  it('turns run-time failures into an error outcome', () => {
    expect(run('product.attributes.missing == 1')).toEqual({
      status: 'error',
      message: expect.stringMatching(/^Evaluation failed: .*missing/),
    });
    expect(run('size(product.description) > 3').status).toBe('error');
    expect(run('product.attributes.label')).toEqual({
      status: 'error',
      message: 'The rule evaluated to a string, not a boolean.',
    });
  });

  it('gives no access to JavaScript internals', () => {
    expect(run('product.attributes.constructor == null').status).toBe('error');
    expect(run('product["__proto__"] == null').status).toBe('error');
  });
});
