import { ArgumentsHost, BadRequestException, Logger, NotFoundException } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import type { AppConfig } from '../../config/app.config';
import { InstanceContext } from '../../database/instance-context';
import { InstanceDatabases } from '../../database/instance-databases.registry';
import { Conflict, TooManyRequests, ValidationFailed } from './domain-error';
import { ProblemDetailsFilter } from './problem-details.filter';

function run(exception: unknown, filter = new ProblemDetailsFilter()) {
  const headers: Record<string, string> = {};
  let status = 0;
  let body = '';
  let contentType = '';
  const response = {
    headersSent: false,
    setHeader: (name: string, value: string) => (headers[name] = value),
    getHeader: (name: string) => headers[name],
    status(code: number) {
      status = code;
      return this;
    },
    type(value: string) {
      contentType = value;
      return this;
    },
    send(value: string) {
      body = value;
      return this;
    },
  };
  const request = {
    originalUrl: '/api/v1.0/things/1?x=1',
    url: '/api/v1.0/things/1?x=1',
    method: 'GET',
    id: 'req-42',
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  filter.catch(exception, host);
  return { status, headers, contentType, body: JSON.parse(body) as Record<string, unknown> };
}

function queryFailed(code: string, detail: string, extra: Record<string, unknown> = {}): QueryFailedError {
  return new QueryFailedError('INSERT ...', [], Object.assign(new Error('db'), { code, detail, ...extra }));
}

describe('ProblemDetailsFilter', () => {
  it('writes a domain error with its fields, extensions and headers', () => {
    const out = run(new TooManyRequests(12));
    expect(out.status).toBe(429);
    expect(out.contentType).toBe('application/problem+json');
    expect(out.headers['Retry-After']).toBe('12');
    expect(out.body).toEqual({
      type: 'urn:verity:problem:too-many-requests',
      title: 'Too Many Requests',
      status: 429,
      detail: 'Rate limit exceeded: try again in 12 seconds.',
      instance: '/api/v1.0/things/1',
      code: 'rate_limited',
      retry_after: 12,
    });
  });

  it('adds errors[] for validation failures', () => {
    const out = run(new ValidationFailed([{ field: 'name', message: 'name is required.' }]));
    expect(out.status).toBe(422);
    expect(out.body.errors).toEqual([{ field: 'name', message: 'name is required.' }]);
    expect(out.body.detail).toBe('name is required.');
  });

  it("maps Nest's own exceptions to sentences", () => {
    expect(run(new NotFoundException('Cannot GET /api/v1.0/x')).body.detail).toBe(
      'The requested resource was not found.',
    );
    expect(run(new BadRequestException('bad thing')).body).toEqual(
      expect.objectContaining({ status: 400, detail: 'Bad thing.' }),
    );
  });

  it('maps body-parser failures wrapped by Nest to a 400 about JSON', () => {
    const cause = Object.assign(new SyntaxError('Unexpected token'), {
      status: 400,
      type: 'entity.parse.failed',
    });
    const out = run(new BadRequestException('Unexpected token', { cause }));
    expect(out.body).toEqual(
      expect.objectContaining({ status: 400, detail: 'The request body is not valid JSON.' }),
    );
  });

  it('maps constraint violations that slip past the services', () => {
    expect(run(queryFailed('23505', 'Key (slug)=(a) already exists.')).body).toEqual(
      expect.objectContaining({ status: 409, detail: 'A resource with the same slug already exists.' }),
    );
    expect(run(queryFailed('23503', 'Key (owner_id)=(x) is not present in table "users".')).status).toBe(422);
    expect(run(queryFailed('23503', 'Key (id)=(x) is still referenced from table "y".')).status).toBe(409);
    expect(run(queryFailed('22P02', 'invalid input syntax')).status).toBe(422);
    expect(run(new Conflict('Taken.')).status).toBe(409);
  });

  it('answers an unexpected error with a generic 500 that leaks nothing, logging the cause with the request id', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const out = run(new Error('connection string postgres://admin:hunter2@db'));
    expect(out.status).toBe(500);
    expect(out.body.detail).toBe('An unexpected error occurred. Quote the request id when reporting it.');
    expect(out.body.request_id).toBe('req-42');
    expect(JSON.stringify(out.body)).not.toContain('hunter2');
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({ msg: expect.stringContaining('[request req-42]'), request_id: 'req-42' }),
      expect.stringContaining('hunter2'),
    );
    logged.mockRestore();
  });

  it("answers a lost connection to the request's instance database with that instance's 503, wherever it was thrown", () => {
    const databases = new InstanceDatabases({} as DataSource, {} as AppConfig);
    const marked = jest.spyOn(databases, 'markUnavailable');
    const filter = new ProblemDetailsFilter(databases);
    const lost = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    const onInstance = (work: () => ReturnType<typeof run>) =>
      InstanceContext.run({ instanceId: 'north', dataSource: null }, work);

    const out = onInstance(() => run(new QueryFailedError('SELECT 1', [], lost), filter));
    expect(out.status).toBe(503);
    expect(out.headers['Retry-After']).toBe('5');
    expect(out.body).toEqual(
      expect.objectContaining({ code: 'instance_database_unavailable', instance_id: 'north' }),
    );
    expect(marked).toHaveBeenCalledWith('north', expect.any(QueryFailedError));

    // A statement error on the instance, or a lost connection to the deployment's own database, is not.
    expect(onInstance(() => run(queryFailed('23505', 'Key (slug)=(a) already exists.'), filter)).status).toBe(
      409,
    );
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    expect(run(lost, filter).status).toBe(500);
    logged.mockRestore();
    expect(marked).toHaveBeenCalledTimes(1);
  });
});
