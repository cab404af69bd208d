import type { Response } from 'supertest';
import type { TestApp } from './app';
import { bearer, TestUser } from './factories';

const API = '/api/v1.0';

/**
 * An HTTP client acting as `user` under /api/v1.0 that hands every response
 * to `record` first: suites keep all they saw to prove a secret never left
 * the service.
 */
export function recordingClient(app: () => TestApp, user: TestUser, record: (res: Response) => void) {
  const seen = (res: Response) => {
    record(res);
    return res;
  };
  const http = () => app().http;
  return {
    get: async (path: string) =>
      seen(
        await http()
          .get(API + path)
          .set(bearer(user)),
      ),
    post: async (path: string, body: object = {}) =>
      seen(
        await http()
          .post(API + path)
          .set(bearer(user))
          .send(body),
      ),
    put: async (path: string, body: object = {}) =>
      seen(
        await http()
          .put(API + path)
          .set(bearer(user))
          .send(body),
      ),
    patch: async (path: string, body: object = {}) =>
      seen(
        await http()
          .patch(API + path)
          .set(bearer(user))
          .send(body),
      ),
    delete: async (path: string) =>
      seen(
        await http()
          .delete(API + path)
          .set(bearer(user)),
      ),
  };
}
