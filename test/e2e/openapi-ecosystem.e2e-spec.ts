import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { startApp, TestApp } from '../support/app';
import { checkedFetch } from '../support/openapi-contract';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const CLIENT_DIR = join(ROOT, 'test', 'client');
// Neither tool may phone home from a test: no telemetry, no update check.
const TOOL_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

interface SpectralResult {
  code: string;
  message: string;
  severity: number;
  path: string[];
}

interface SchemaLike {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  anyOf?: SchemaLike[];
  allOf?: SchemaLike[];
}

/** What test/client/flows.ts returns, as far as this test reads it. */
type MainFlows = (
  baseUrl: string,
  unique: string,
  fetch: typeof checkedFetch,
) => Promise<{
  registered: { id: string; email: string };
  login: { token_type: string; refresh_token: string };
  refreshed: { refresh_token: string };
  space: { id: string };
  product: { id: string };
  firstPage: { items: { name: string }[]; total: number };
  secondPage: { items: { name: string }[]; total: number };
  me: { id: string };
}>;

/** Strict type errors of one file, as `file:line message`. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    noUnusedLocals: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where =
      d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `${d.file?.fileName ?? ''}:${where} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

describe('OpenAPI document in the ecosystem', () => {
  let t: TestApp;
  let work: string;
  let documentPath: string;

  beforeAll(async () => {
    t = await startApp();
    const res = await t.http.get('/api/v1.0/openapi.json');
    expect(res.status).toBe(200);
    // Inside the repository, so that the generated client resolves openapi-fetch from node_modules.
    work = mkdtempSync(join(CLIENT_DIR, '.work-'));
    documentPath = join(work, 'openapi.json');
    writeFileSync(documentPath, res.text);
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await t.close();
  });

  /** Redocly's JSON report of `path` (it exits 1 when it finds errors; the report on stdout says which). */
  async function redocly(path: string): Promise<LintReport> {
    const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
    const args = [cli, 'lint', path, '--format=json', `--config=${join(ROOT, 'redocly.yaml')}`];
    const { stdout } = await run(process.execPath, args, { env: TOOL_ENV, maxBuffer: 64 << 20 }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }),
    );
    return JSON.parse(stdout) as LintReport;
  }

  it('lints clean with Redocly, recommended rules: no error, no warning', async () => {
    const report = await redocly(documentPath);
    const problems = report.problems.map(
      (p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`,
    );
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  }, 60_000);

  it('lints clean with Spectral, spectral:oas rules: no error, no warning', async () => {
    const cli = join(ROOT, 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js');
    const output = join(work, 'spectral.json');
    const args = [cli, 'lint', documentPath, `--ruleset=${join(ROOT, '.spectral.yaml')}`];
    // Spectral exits 1 on a result at or above --fail-severity; the report in the file says which.
    await run(process.execPath, [...args, '--format=json', `--output=${output}`, '--fail-severity=hint'], {
      env: TOOL_ENV,
      maxBuffer: 64 << 20,
    }).catch(() => undefined);
    const results = JSON.parse(readFileSync(output, 'utf8')) as SpectralResult[];
    const SEVERITY = ['error', 'warning', 'info', 'hint'];
    expect(results.map((r) => `${SEVERITY[r.severity]} ${r.code} ${r.path.join('.')}: ${r.message}`)).toEqual(
      [],
    );
  }, 120_000);

  it('admits null in every nullable reference, as Redocly checks examples (a nullable allOf would not)', async () => {
    const document = JSON.parse(readFileSync(documentPath, 'utf8')) as {
      components: { schemas: Record<string, { properties?: Record<string, SchemaLike> }> };
    };
    // The served form: `anyOf: [{$ref}, {type, nullable: true, enum: [null]}]`.
    const nullable = Object.entries(document.components.schemas).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, p]) =>
          p.anyOf?.some((alternative) => alternative.enum?.length === 1 && alternative.enum[0] === null),
        )
        .map(([property, p]) => ({ at: `${name}.${property}`, schema: p })),
    );
    expect(nullable.map((n) => n.at)).toEqual(
      expect.arrayContaining([
        'AccessRequestResponse.decided_by',
        'TicketResponse.assignee',
        'SpaceResponse.role',
        'SsoProviderResponse.oidc',
        'SsoProviderResponse.saml',
      ]),
    );
    /** A document whose one response has every nullable reference as a property, in `form`, and `null` in each. */
    const probe = async (form: (schema: SchemaLike) => SchemaLike): Promise<string[]> => {
      const path = join(work, 'nullable-probe.json');
      const properties = Object.fromEntries(nullable.map((n) => [n.at.replace('.', '_'), form(n.schema)]));
      const example = Object.fromEntries(Object.keys(properties).map((name) => [name, null]));
      const response = {
        description: 'Probe.',
        content: { 'application/json': { schema: { type: 'object', properties }, example } },
      };
      writeFileSync(
        path,
        JSON.stringify({
          ...document,
          paths: {
            '/probe': { get: { operationId: 'probe', summary: 'Probe', responses: { '200': response } } },
          },
        }),
      );
      const report = await redocly(path);
      return report.problems
        .filter((p) => p.ruleId === 'no-invalid-media-type-examples')
        .map((p) => p.location[0]?.pointer.split('/').pop() ?? '');
    };
    expect(await probe((schema) => schema)).toEqual([]);
    // The generator's own form, which strict validators apply to null as well: each one refused.
    const refused = await probe(({ anyOf, ...rest }) => ({
      ...rest,
      ...anyOf![1],
      allOf: [anyOf![0]],
      enum: undefined,
    }));
    expect(new Set(refused)).toEqual(new Set(nullable.map((n) => n.at.replace('.', '_'))));
  }, 120_000);

  describe('a typed client generated with openapi-typescript and driven with openapi-fetch', () => {
    let flowsPath: string;

    beforeAll(async () => {
      mkdirSync(join(work, 'generated'));
      const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
      // A field with a default may be left out of a request: it is not made required.
      const args = [
        cli,
        documentPath,
        '-o',
        join(work, 'generated', 'api.d.ts'),
        '--default-non-nullable=false',
      ];
      await run(process.execPath, args, { env: TOOL_ENV });
      flowsPath = join(work, 'flows.ts');
      copyFileSync(join(CLIENT_DIR, 'flows.ts'), flowsPath);
    }, 60_000);

    it('types every schema it uses (no dangling reference left as "any schema")', () => {
      const types = readFileSync(join(work, 'generated', 'api.d.ts'), 'utf8');
      expect(types).toMatch(
        /UpdatePreferencesDto: \{[^}]*notifications\?: components\["schemas"\]\["NotificationPreferencesPatch"\]/,
      );
      expect(types).toMatch(/config: components\["schemas"\]\["ConnectorConfigDto"\]/);
      expect(types).not.toMatch(/components\["schemas"\]\[""\]/);
    });

    it('compiles the client flows in strict mode', () => {
      expect(typeErrors(flowsPath)).toEqual([]);
    }, 60_000);

    it('fails to compile when the flows use a field the contract does not have', () => {
      const drifted = join(work, 'drifted.ts');
      writeFileSync(
        drifted,
        readFileSync(flowsPath, 'utf8')
          .replace("first_name: 'Typed'", "firstName: 'Typed'")
          .replace("product_type: 'dashboard'", "product_type: 'spreadsheet'")
          .replace('refreshed.access_token', 'refreshed.accessToken'),
      );
      const errors = typeErrors(drifted);
      for (const error of errors) expect(error).toMatch(/drifted\.ts:\d+ /);
      const text = errors.join('\n');
      expect(text).toMatch(/'firstName' does not exist in type/);
      expect(text).toMatch(/'accessToken' does not exist on type/);
      expect(text).toMatch(/'"spreadsheet"' is not assignable/);
    }, 60_000);

    it('drives register, form login, refresh, a space, a product, a paged list and /auth/me', async () => {
      // The copy beside its generated types (test/client is outside the project's own type-check).
      const { runMainFlows } = (await import(flowsPath)) as { runMainFlows: MainFlows };
      const unique = randomUUID().slice(0, 8);
      const result = await runMainFlows(t.baseUrl, unique, checkedFetch);

      expect(result.registered.email).toBe(`typed-${unique}@example.test`);
      expect(result.login.token_type.toLowerCase()).toBe('bearer');
      expect(result.refreshed.refresh_token).not.toBe(result.login.refresh_token);
      expect(result.space).toEqual(expect.objectContaining({ slug: `typed-${unique}`, role: 'admin' }));
      expect(result.product).toEqual(expect.objectContaining({ name: 'Orders', space_id: result.space.id }));
      expect(result.firstPage.total).toBe(2);
      expect(result.secondPage.total).toBe(2);
      expect(result.firstPage.items).toHaveLength(1);
      expect(result.secondPage.items).toHaveLength(1);
      expect([...result.firstPage.items, ...result.secondPage.items].map((p) => p.name).sort()).toEqual([
        'Customers',
        'Orders',
      ]);
      expect(result.me).toEqual(
        expect.objectContaining({ id: result.registered.id, email: result.registered.email }),
      );
    });
  });
});
