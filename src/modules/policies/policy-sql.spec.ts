import { compileRuleToSql } from './policy-sql';

describe('compileRuleToSql', () => {
  it.each([
    'size(product.owners) > 0',
    'product.description != null && size(product.description) >= 20',
    'product.sensitivity != null && product.criticality != null',
    'product.product_type != "dataset" || product.sla_freshness_minutes != null',
    'product.open_incident_count == 0',
    '!("pii" in product.tags) || product.sensitivity == "restricted"',
    'product.owners.all(o, o.email.endsWith("@example.test"))',
    'product.domain != null',
    'product.updated_at > timestamp("2020-01-01T00:00:00Z")',
    'product.attributes.n > 0',
    'has(product.attributes.reviewed) && product.attributes.reviewed == true',
    'product.domain in ["finance", "sales"] ? product.name.startsWith("fin") : true',
    'product.tags.exists(t, t.contains("gold")) && product.stewards.exists(s, s.full_name.lowerAscii() == "ada")',
    'product.name.matches("^[a-z]+-[0-9]+$") && product.sla_freshness_minutes <= 1.5',
  ])('compiles %s', (rule) => {
    expect(compileRuleToSql(rule, 5)).not.toBeNull();
  });

  it.each([
    // Arithmetic, string building and other functions keep the batched evaluator.
    'size(product.tags) + 1 > 2',
    'product.name + "x" == "ax"',
    'product.owners.exists_one(o, o.email == "a@b")',
    'product.tags.map(t, t.size()).exists(n, n > 2)',
    'product.name < "\uE000"',
    'product.name.matches("a.b")',
    'product.name.matches("[z-a]")',
    'product.name.matches("[a-z-0]")',
    'product.name == product.domain',
    'product.created_at < product.updated_at',
    'product.attributes.n > 9007199254740993',
    'product.name == "a\u0000b"',
  ])('leaves %s to the batched evaluator', (rule) => {
    expect(compileRuleToSql(rule, 5)).toBeNull();
  });

  it('binds every value of the rule as a parameter, numbered from the first one given', () => {
    const sql = compileRuleToSql('product.domain == "fin\'; DROP TABLE x; --" && "pii" in product.tags', 7)!;
    expect(sql.expression).not.toContain('DROP');
    expect(sql.expression).not.toContain('pii');
    expect(sql.params).toEqual(["fin'; DROP TABLE x; --", 'pii']);
    expect(sql.expression).toContain('$7::text');
    expect(sql.expression).toContain('$8::text');
  });

  it('joins only the metadata values the rule reads', () => {
    expect(compileRuleToSql('product.criticality == "high"', 1)!.joins).toEqual(['criticality']);
    expect(compileRuleToSql('product.domain == "x"', 1)!.joins).toEqual([]);
  });
});
