import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { bearer, TestUser } from './factories';

export const API = '/api/v1.0';
export const SCIM = `${API}/scim/v2`;
export const SCIM_JSON = 'application/scim+json';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** Throws with the body when the status is not the one expected, so a failing step says why. */
export function expectStatus(res: Response, status: number): Response {
  if (res.status !== status) {
    throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res;
}

export const patchOp = (...operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations: operations });

/** A superadmin's SCIM token. */
export async function scimToken(http: TestAgent, root: TestUser, name: string): Promise<string> {
  const res = expectStatus(await http.post(`${API}/admin/scim-tokens`).set(bearer(root)).send({ name }), 201);
  return res.body.token as string;
}

/** Maps a SCIM group to a role in a space, as a superadmin does. */
export async function mapGroup(
  http: TestAgent,
  root: TestUser,
  groupId: string,
  space: { slug: string },
  role: 'admin' | 'editor' | 'viewer',
): Promise<{ id: string }> {
  const res = await http
    .post(`${API}/admin/scim-group-mappings`)
    .set(bearer(root))
    .send({ group_id: groupId, space: space.slug, role });
  return expectStatus(res, 201).body as { id: string };
}

/** What the REST API says of a user: their account and their role in each of the spaces. */
export async function restView(
  http: TestAgent,
  root: TestUser,
  userId: string,
  spaces: { slug: string }[],
): Promise<{ email: string; is_active: boolean; roles: Record<string, string | null> }> {
  const user = expectStatus(await http.get(`${API}/users/${userId}`).set(bearer(root)), 200).body as {
    email: string;
    is_active: boolean;
  };
  const roles: Record<string, string | null> = {};
  for (const space of spaces) {
    const res = expectStatus(
      await http.get(`${API}/spaces/${space.slug}/members`).query({ limit: 200 }).set(bearer(root)),
      200,
    );
    const member = (res.body.items as { user_id: string; role: string }[]).find((m) => m.user_id === userId);
    roles[space.slug] = member?.role ?? null;
  }
  return { email: user.email, is_active: user.is_active, roles };
}

/** The user ids of a SCIM group's members. */
export const memberIds = (group: { members?: { value: string }[] }) =>
  (group.members ?? []).map((m) => m.value).sort();
