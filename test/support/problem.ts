import type { Response } from 'supertest';

/** Asserts an RFC 9457 problem-details answer with the given status. */
export function expectProblem(res: Response, status: number, detail?: RegExp | string): void {
  if (res.status !== status) {
    throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual(
    expect.objectContaining({
      type: expect.any(String),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: expect.any(String),
    }),
  );
  if (detail) expect(res.body.detail).toMatch(detail);
}

/** The fields named in a 422's `errors[]`. */
export function invalidFields(res: Response): string[] {
  return (res.body.errors ?? []).map((e: { field: string }) => e.field);
}
