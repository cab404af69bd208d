import { randomUUID } from 'node:crypto';
import { GOVERNED_PRODUCT_JOINS } from '../../src/modules/catalog/catalog.contract';
import { checkRule } from '../../src/modules/policies/policy-rules';
import { compileRuleToSql } from '../../src/modules/policies/policy-sql';
import { startApp, TestApp } from '../support/app';
import { dbQuery } from '../support/db';
import {
  addMember,
  bearer,
  createProduct,
  createSpace,
  createUser,
  TestSpace,
  TestUser,
} from '../support/factories';

/*
 * Property test: rules of the compiled subset, generated at random, give the
 * same outcome per product (status and message) through the compiled path
 * (POST .../evaluate, one SQL statement per policy, undecided products handed
 * to the batched evaluator) as through the batched evaluator alone
 * (POST .../dry-run), on random products, first on a cold run and again after
 * the products change (only changed outcomes rewritten, policy.violated for
 * those that turned non-compliant). Seeded, so a failure names its seed.
 */

const API = '/api/v1.0';
const SEED = Number(process.env.POLICY_SQL_SEED ?? 20_261_128);
const PRODUCTS = 36;
const RULES = 100;
const DRY_RUN_MESSAGE = 'The product does not satisfy the rule.';

/** mulberry32: small, seedable, good enough to spread test cases. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof generator>;

const TEXTS = [
  '',
  'a',
  'gold',
  'Gold',
  'finance',
  'sales',
  'é',
  'Ünïcödé 😀',
  'ß',
  '\uE000x',
  '😀',
  'p-1',
  'x y',
];
const ASCII = ['', 'a', 'f', 'finance', 'p', 'p-2', 'sales', 'z', 'Z', '~'];
const TAGS = ['pii', 'gold', 'bench', 'Gold', 'ü', '😀'];
const DOMAINS = [null, 'finance', 'sales', 'Finance', 'é', ''];
const DESCRIPTIONS = [
  null,
  '',
  'short',
  'Benchmark product number 12',
  'Ünïcödé 😀 data product here',
  'ab\ncd',
];
const TYPES = ['dataset', 'dashboard', 'ml_model', 'pipeline'];
/** Product update times sit around these instants, some within a millisecond (the precision edge). */
const INSTANTS = ['2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.001Z', '2020-06-15T12:30:00.000Z'];
const ATTRIBUTE_VALUES: unknown[] = [
  0,
  1,
  5,
  -3,
  2.5,
  0.1,
  1e20,
  '5',
  'x',
  '',
  true,
  false,
  null,
  { x: 1 },
  [1],
];

function randomAttributes(rng: Rng): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const key of ['n', 'label', 'reviewed', 'nested']) {
    if (rng.chance(0.3)) continue;
    attributes[key] = key === 'nested' ? { x: rng.pick(ATTRIBUTE_VALUES) } : rng.pick(ATTRIBUTE_VALUES);
  }
  return attributes;
}

const lit = (value: string) => JSON.stringify(value);
const cmp = (rng: Rng) => rng.pick(['==', '!=', '<', '<=', '>', '>=']);

function atom(rng: Rng, levels: { criticality: string[]; sensitivity: string[] }): string {
  switch (rng.int(22)) {
    case 0:
      return `product.${rng.pick(['domain', 'description', 'criticality', 'sensitivity', 'maintenance_status', 'sla_freshness_minutes'])} ${rng.pick(['==', '!='])} null`;
    case 1:
      return `product.domain ${rng.pick(['==', '!='])} ${lit(rng.pick(DOMAINS.filter((d) => d !== null) as string[]))}`;
    case 2:
      return `product.sla_freshness_minutes ${cmp(rng)} ${rng.pick([0, 30, 60, 1440])}`;
    case 3:
      return `size(product.${rng.pick(['description', 'name', 'domain'])}) ${cmp(rng)} ${rng.int(30)}`;
    case 4:
      return `product.${rng.pick(['name', 'product_type', 'domain'])} ${cmp(rng)} ${lit(rng.pick(ASCII))}`;
    case 5:
      return `${lit(rng.pick(TAGS))} in product.tags`;
    case 6:
      return `product.${rng.pick(['domain', 'product_type'])} in [${[rng.pick(TEXTS), rng.pick(ASCII)].map(lit).join(', ')}]`;
    case 7:
      return `product.tags.${rng.pick(['exists', 'all'])}(t, t.${rng.pick(['startsWith', 'endsWith', 'contains'])}(${lit(rng.pick(TEXTS))}))`;
    case 8:
      return `product.${rng.pick(['owners', 'stewards'])}.${rng.pick(['exists', 'all'])}(o, o.${rng.pick(['email', 'full_name'])}.${rng.pick(['startsWith', 'endsWith', 'contains'])}(${lit(rng.pick(['ada', '@example.test', 'Å', '', 'Bo ']))}))`;
    case 9:
      return `size(product.${rng.pick(['owners', 'stewards', 'tags'])}) ${cmp(rng)} ${rng.int(3)}`;
    case 10:
      return `product.attributes.${rng.pick(['n', 'label', 'reviewed'])} ${cmp(rng)} ${rng.pick(['0', '1', '5', '2.5', '-3', '0.1', '"5"', '"x"'])}`;
    case 11:
      return `product.attributes.${rng.pick(['n', 'label', 'reviewed'])} ${rng.pick(['==', '!='])} ${rng.pick(['true', 'false', 'null'])}`;
    case 12:
      return `has(product.attributes.${rng.pick(['n', 'label', 'reviewed', 'nested'])})`;
    case 13:
      return rng.chance(0.5) ? 'product.attributes.reviewed' : 'product.attributes.nested.x == 1';
    case 14:
      return `product.updated_at ${rng.pick(['<', '<=', '>', '>='])} timestamp(${lit(rng.pick(INSTANTS))})`;
    case 15:
      return `product.open_incident_count ${cmp(rng)} ${rng.int(3)}`;
    case 16:
      return `product.${rng.pick(['name', 'description', 'domain'])}.${rng.pick(['startsWith', 'endsWith', 'contains'])}(${lit(rng.pick(TEXTS))})`;
    case 17:
      return `product.name.matches(${lit(rng.pick(['^p-[0-9]+', 'gold$', '[a-f]+', '^p-1[0-9]?-', 'x*']))})`;
    case 18:
      return `product.${rng.pick(['name', 'domain'])}.${rng.pick(['lowerAscii', 'upperAscii'])}() == ${lit(rng.pick(['finance', 'FINANCE', 'é', 'É']))}`;
    case 19:
      return `product.criticality == ${lit(rng.pick([...levels.criticality, 'none']))}`;
    case 20:
      return `product.sensitivity ${rng.pick(['==', '!='])} ${lit(rng.pick([...levels.sensitivity, 'none']))}`;
    default:
      return `has(product.${rng.pick(['domain', 'tags', 'owners'])})`;
  }
}

function rule(rng: Rng, levels: { criticality: string[]; sensitivity: string[] }, depth = 0): string {
  if (depth >= 3 || rng.chance(0.35)) return atom(rng, levels);
  const a = rule(rng, levels, depth + 1);
  const b = rule(rng, levels, depth + 1);
  switch (rng.int(5)) {
    case 0:
    case 1:
      return `(${a} && ${b})`;
    case 2:
    case 3:
      return `(${a} || ${b})`;
    default:
      return rng.chance(0.5) ? `!(${a})` : `(${a} ? ${b} : ${rule(rng, levels, depth + 1)})`;
  }
}

interface Outcome {
  status: string;
  message: string | null;
}

describe('policies compiled to SQL', () => {
  let t: TestApp;
  let admin: TestUser;
  let space: TestSpace;
  let productIds: string[];
  let levels: { criticality: string[]; sensitivity: string[] };
  const rng = generator(SEED);

  beforeAll(async () => {
    t = await startApp();
    admin = await createUser(t.http, { first_name: 'Ada', email: `ada-${randomUUID()}@example.test` });
    const people = [
      admin,
      await createUser(t.http, {
        first_name: 'Åsa',
        last_name: 'Ek',
        email: `asa-${randomUUID()}@example.org`,
      }),
      await createUser(t.http, {
        first_name: 'Bo',
        last_name: 'Ng',
        email: `bo-${randomUUID()}@example.test`,
      }),
    ];
    space = await createSpace(t.http, admin);
    for (const person of people.slice(1)) await addMember(t.http, admin, space, person, 'viewer');
    const seeded = async (collection: string) => {
      const res = await t.http
        .post(`${API}/spaces/${space.slug}/config/${collection}/seed`)
        .set(bearer(admin));
      expect(res.status).toBeLessThan(300);
      return (res.body as { name: string; slug?: string }[]).map((v) => v.slug ?? v.name);
    };
    levels = {
      criticality: await seeded('criticality-levels'),
      sensitivity: await seeded('sensitivity-levels'),
    };
    const statuses = await seeded('maintenance-statuses');
    productIds = [];
    for (let i = 0; i < PRODUCTS; i++) {
      const product = await createProduct(t.http, admin, space, {
        name: `p-${i}-${rng.pick(['a', 'gold', 'É', 'x'])}`,
        description: rng.pick(DESCRIPTIONS),
        product_type: rng.pick(TYPES),
        domain: rng.pick(DOMAINS),
        tags: TAGS.filter(() => rng.chance(0.3)),
        criticality: rng.chance(0.3) ? null : rng.pick(levels.criticality),
        sensitivity: rng.chance(0.3) ? null : rng.pick(levels.sensitivity),
        maintenance_status: rng.chance(0.5) ? null : rng.pick(statuses),
        sla_freshness_minutes: rng.chance(0.3) ? null : rng.pick([1, 30, 60, 1440]),
        owner_ids: people.filter(() => rng.chance(0.4)).map((p) => p.id),
        steward_ids: people.filter(() => rng.chance(0.3)).map((p) => p.id),
        attributes: randomAttributes(rng),
      });
      productIds.push(product.id);
    }
    await moveUpdateTimes();
    // Open and resolved incidents on some products.
    for (const status of ['open', 'resolved', 'open']) {
      const [incident] = await dbQuery<{ id: string }>(
        `INSERT INTO quality_incidents (space_id, title, severity, status) VALUES ($1, 'i', 'high', $2) RETURNING id`,
        [space.id, status],
      );
      for (const productId of productIds.filter(() => rng.chance(0.2))) {
        await dbQuery(
          `INSERT INTO quality_alerts (space_id, product_id, incident_id, alert_type, severity, message)
           VALUES ($1, $2, $3, 'custom', 'high', 'm')`,
          [space.id, productId, incident.id],
        );
      }
    }
  }, 600_000);
  afterAll(async () => {
    await t?.close();
  });

  /** Update times around the rules' instants, microseconds included (the API keeps only milliseconds). */
  async function moveUpdateTimes(): Promise<void> {
    const micros = productIds.map(
      (): number =>
        new Date(rng.pick(INSTANTS)).getTime() * 1000 +
        rng.pick([-2500, -1000, -1, 0, 1, 499, 500, 999, 1500, 3e9]),
    );
    await dbQuery(
      `UPDATE products p SET updated_at = to_timestamp(m.micros / 1e6)
         FROM unnest($1::uuid[], $2::float8[]) AS m(id, micros) WHERE p.id = m.id`,
      [productIds, micros],
    );
  }

  async function batched(expression: string): Promise<Map<string, Outcome>> {
    const res = await t.http
      .post(`${API}/spaces/${space.slug}/policies/dry-run`)
      .set(bearer(admin))
      .send({ rule_expression: expression });
    expect(res.status).toBe(200);
    const outcomes = new Map<string, Outcome>(
      productIds.map((id) => [id, { status: 'compliant', message: null }]),
    );
    for (const f of res.body.findings as { product_id: string; status: string; message: string }[])
      outcomes.set(f.product_id, { status: f.status, message: f.message });
    return outcomes;
  }

  async function compiled(policyId: string): Promise<Map<string, Outcome>> {
    const run = await t.http
      .post(`${API}/spaces/${space.slug}/policies/${policyId}/evaluate`)
      .set(bearer(admin));
    expect(run.status).toBe(200);
    expect(run.body.total_products_evaluated).toBe(PRODUCTS);
    const list = await t.http
      .get(`${API}/spaces/${space.slug}/policies/${policyId}/evaluations?limit=200`)
      .set(bearer(admin));
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(PRODUCTS);
    const counts = { compliant: 0, non_compliant: 0, error: 0 } as Record<string, number>;
    const outcomes = new Map<string, Outcome>();
    for (const e of list.body.items as { product_id: string; status: string; message: string | null }[]) {
      outcomes.set(e.product_id, { status: e.status, message: e.message });
      counts[e.status]++;
    }
    expect([run.body.compliant, run.body.violations_found, run.body.errors]).toEqual([
      counts.compliant,
      counts.non_compliant,
      counts.error,
    ]);
    return outcomes;
  }

  it('gives the batched evaluator`s outcome for every product and random rule, cold and after changes', async () => {
    const policies: { id: string; name: string; expression: string }[] = [];
    while (policies.length < RULES) {
      const expression = rule(rng, levels);
      if (checkRule(expression)) continue;
      // The generator keeps to the subset: every rule takes the compiled path.
      expect({ expression, compiles: compileRuleToSql(expression, 5) !== null }).toEqual({
        expression,
        compiles: true,
      });
      const res = await t.http
        .post(`${API}/spaces/${space.slug}/policies`)
        .set(bearer(admin))
        .send({
          name: `rule ${policies.length}`,
          policy_type: 'custom',
          rule_expression: expression,
          severity: 'low',
          is_enabled: false,
        });
      expect(res.status).toBe(201);
      policies.push({ id: res.body.id, name: res.body.name, expression });
    }

    const expected = async (p: { name: string; expression: string }) => {
      const outcomes = await batched(p.expression);
      for (const o of outcomes.values())
        if (o.status === 'non_compliant') {
          expect(o.message).toBe(DRY_RUN_MESSAGE);
          o.message = `Violates "${p.name}": ${p.expression}`;
        }
      return outcomes;
    };
    const first = new Map<string, Map<string, Outcome>>();
    const statuses = new Set<string>();
    for (const p of policies) {
      const want = await expected(p);
      const got = await compiled(p.id);
      expect({ seed: SEED, rule: p.expression, outcomes: Object.fromEntries(got) }).toEqual({
        seed: SEED,
        rule: p.expression,
        outcomes: Object.fromEntries(want),
      });
      for (const o of got.values()) statuses.add(o.status);
      first.set(p.id, got);
    }
    // SQL decides most outcomes itself (the rest are CEL errors, handed to the evaluator).
    let decided = 0;
    for (const p of policies) {
      const sql = compileRuleToSql(p.expression, 2)!;
      const joins = sql.joins.map((j) => GOVERNED_PRODUCT_JOINS[j]).join(' ');
      const [row] = await dbQuery<{ n: number }>(
        `SELECT count(*) FILTER (WHERE ok IS NOT NULL)::int AS n
           FROM (SELECT ${sql.expression} AS ok FROM products p ${joins} WHERE p.space_id = $1) s`,
        [space.id, ...sql.params],
      );
      decided += row.n;
    }
    expect(decided / (RULES * PRODUCTS)).toBeGreaterThan(0.6);
    // The rules reach every outcome, so agreement is not agreement on one answer.
    expect([...statuses].sort()).toEqual(['compliant', 'error', 'non_compliant']);

    // Change the products; a second run rewrites only what changed and reports new violations.
    for (const id of productIds.filter(() => rng.chance(0.5))) {
      await dbQuery(`UPDATE products SET attributes = $2, tags = $3, description = $4 WHERE id = $1`, [
        id,
        JSON.stringify(randomAttributes(rng)),
        TAGS.filter(() => rng.chance(0.3)),
        rng.pick(DESCRIPTIONS),
      ]);
    }
    await moveUpdateTimes();
    const before = await dbQuery<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'policy.violated' AND space_id = $1`,
      [space.id],
    );
    let turned = 0;
    for (const p of policies) {
      const want = await expected(p);
      const got = await compiled(p.id);
      expect({ seed: SEED, rule: p.expression, outcomes: Object.fromEntries(got) }).toEqual({
        seed: SEED,
        rule: p.expression,
        outcomes: Object.fromEntries(want),
      });
      for (const [productId, o] of got) {
        const was = first.get(p.id)!.get(productId)!.status;
        if (o.status === 'non_compliant' && was !== 'non_compliant') turned++;
      }
    }
    const after = await dbQuery<{ n: number }>(
      `SELECT count(*)::int AS n FROM outbox_events WHERE type = 'policy.violated' AND space_id = $1`,
      [space.id],
    );
    expect(turned).toBeGreaterThan(0);
    expect(after[0].n - before[0].n).toBe(turned);
  }, 1_200_000);
});
