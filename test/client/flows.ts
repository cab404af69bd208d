// The main flows as an SDK user writes them: openapi-fetch over types that
// openapi-typescript generates from /api/v1.0/openapi.json into
// ./generated/api.d.ts (test/e2e/typed-client.e2e-spec.ts does both, then
// type-checks this file in strict mode, so a renamed field fails the build).
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api';

type Schemas = components['schemas'];

export interface FlowResult {
  registered: Schemas['UserResponse'];
  login: Schemas['TokenResponse'];
  refreshed: Schemas['TokenResponse'];
  space: Schemas['SpaceResponse'];
  product: Schemas['ProductResponse'];
  firstPage: Schemas['ProductPage'];
  secondPage: Schemas['ProductPage'];
  me: Schemas['UserResponse'];
}

/** An `application/x-www-form-urlencoded` body from the fields that are set. */
function formBody(fields: Record<string, string | undefined>): string {
  const set = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return new URLSearchParams(set).toString();
}

/** The response's data, or an error naming the step and the problem the API answered. */
function ok<T>(step: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) {
    throw new Error(`${step}: ${result.response.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

/** `fetch` defaults to the global one; the e2e suite passes one that checks each answer against the contract. */
export async function runMainFlows(
  baseUrl: string,
  unique: string,
  fetch?: (input: Request) => Promise<Response>,
): Promise<FlowResult> {
  const anonymous = createClient<paths>({ baseUrl, fetch });
  const email = `typed-${unique}@example.test`;
  const password = 'correct-horse-battery';

  const registered = ok(
    'register',
    await anonymous.POST('/api/v1.0/auth/register', {
      // `satisfies` makes a field the contract does not have a compile error, even an optional one.
      body: { email, password, first_name: 'Typed', last_name: 'Client' } satisfies Schemas['RegisterDto'],
    }),
  );

  // The OAuth2 password form, as Swagger UI and OAuth2 libraries send it.
  const login = ok(
    'form login',
    await anonymous.POST('/api/v1.0/auth/token', {
      body: { username: email, password, grant_type: 'password' } satisfies Schemas['TokenRequestDto'],
      bodySerializer: formBody,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    }),
  );

  const refreshed = ok(
    'refresh',
    await anonymous.POST('/api/v1.0/auth/refresh', {
      body: { refresh_token: login.refresh_token } satisfies Schemas['RefreshRequestDto'],
    }),
  );

  const client = createClient<paths>({
    baseUrl,
    fetch,
    headers: { Authorization: `${refreshed.token_type} ${refreshed.access_token}` },
  });

  const space = ok(
    'create space',
    await client.POST('/api/v1.0/spaces', {
      body: {
        name: `Typed ${unique}`,
        slug: `typed-${unique}`,
        description: 'Made by the typed client.',
      } satisfies Schemas['CreateSpaceDto'],
    }),
  );

  const path = { slug: space.slug };
  const product = ok(
    'create product',
    await client.POST('/api/v1.0/catalog/spaces/{slug}/products', {
      params: { path },
      body: {
        name: 'Orders',
        description: 'Every order, one row each.',
        tags: ['sales'],
      } satisfies Schemas['CreateProductDto'],
    }),
  );
  ok(
    'create a second product',
    await client.POST('/api/v1.0/catalog/spaces/{slug}/products', {
      params: { path },
      body: { name: 'Customers', product_type: 'dashboard' } satisfies Schemas['CreateProductDto'],
    }),
  );

  const firstPage = ok(
    'list products',
    await client.GET('/api/v1.0/catalog/spaces/{slug}/products', {
      params: { path, query: { skip: 0, limit: 1 } },
    }),
  );
  const secondPage = ok(
    'list products, next page',
    await client.GET('/api/v1.0/catalog/spaces/{slug}/products', {
      params: { path, query: { skip: firstPage.items.length, limit: 1 } },
    }),
  );

  const me = ok('me', await client.GET('/api/v1.0/auth/me'));
  return { registered, login, refreshed, space, product, firstPage, secondPage, me };
}
