import { randomUUID } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import { ROOT_EMAIL, ROOT_PASSWORD } from './database';

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
  refreshToken: string;
}

export const uniqueEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 8)}@example.test`;

export async function login(
  http: TestAgent,
  email: string,
  password: string,
): Promise<{ token: string; refreshToken: string }> {
  const res = await http.post('/api/v1.0/auth/token').type('form').send({ username: email, password });
  if (res.status !== 200) throw new Error(`login ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.access_token, refreshToken: res.body.refresh_token };
}

/** Registers a new user over HTTP and signs them in. */
export async function createUser(
  http: TestAgent,
  fields: { first_name?: string; last_name?: string; email?: string; password?: string } = {},
): Promise<TestUser> {
  const email = fields.email ?? uniqueEmail(fields.first_name?.toLowerCase() ?? 'user');
  const password = fields.password ?? 'correct-horse-1';
  const res = await http.post('/api/v1.0/auth/register').send({
    email,
    password,
    first_name: fields.first_name ?? 'Test',
    last_name: fields.last_name ?? 'User',
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, email, password, ...(await login(http, email, password)) };
}

/** The seeded superadmin, signed in. */
export async function rootUser(http: TestAgent): Promise<TestUser> {
  const tokens = await login(http, ROOT_EMAIL, ROOT_PASSWORD);
  const me = await http.get('/api/v1.0/auth/me').set('Authorization', `Bearer ${tokens.token}`);
  return { id: me.body.id, email: ROOT_EMAIL, password: ROOT_PASSWORD, ...tokens };
}

export const bearer = (user: { token: string }) => ({ Authorization: `Bearer ${user.token}` });

/** The claims of a JWT (not verified: the app did that). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

export interface TestSpace {
  id: string;
  slug: string;
  name: string;
}

/** Creates a space over HTTP; its creator becomes its admin. */
export async function createSpace(
  http: TestAgent,
  owner: { token: string },
  fields: { name?: string; slug?: string; description?: string } = {},
): Promise<TestSpace> {
  const suffix = randomUUID().slice(0, 8);
  const res = await http
    .post('/api/v1.0/spaces')
    .set(bearer(owner))
    .send({ name: fields.name ?? `Space ${suffix}`, slug: fields.slug ?? `space-${suffix}`, ...fields });
  if (res.status !== 201) throw new Error(`create space failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, slug: res.body.slug, name: res.body.name };
}

/** Adds a user to a space with a role (the admin must be a Space Admin). */
export async function addMember(
  http: TestAgent,
  admin: { token: string },
  space: { slug: string },
  user: { id: string },
  role: 'admin' | 'editor' | 'viewer',
): Promise<void> {
  const res = await http
    .post(`/api/v1.0/spaces/${space.slug}/members`)
    .set(bearer(admin))
    .send({ user_id: user.id, role });
  if (res.status !== 201) throw new Error(`add member failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Creates a data product in a space (the user needs edit access). */
export async function createProduct(
  http: TestAgent,
  user: { token: string },
  space: { slug: string },
  fields: Record<string, unknown> = {},
): Promise<{ id: string; name: string } & Record<string, unknown>> {
  const res = await http
    .post(`/api/v1.0/catalog/spaces/${space.slug}/products`)
    .set(bearer(user))
    .send({ name: `Product ${randomUUID().slice(0, 8)}`, ...fields });
  if (res.status !== 201) throw new Error(`create product failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
