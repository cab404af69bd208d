import { Logger } from '@nestjs/common';
import type { DestinationStream } from 'pino';
import { AppLogger } from './app-logger';

function capture(logLevel: ConstructorParameters<typeof AppLogger>[0]['logLevel']) {
  const lines: Record<string, unknown>[] = [];
  const destination: DestinationStream = { write: (line: string) => void lines.push(JSON.parse(line)) };
  return { logger: new AppLogger({ logLevel }, destination), lines };
}

describe('AppLogger', () => {
  afterEach(() => Logger.overrideLogger(false));

  it('writes Nest logger calls as JSON lines with level names, context and redacted text', () => {
    const { logger, lines } = capture('info');
    Logger.overrideLogger(logger);
    new Logger('Mailer').log('Connecting to smtp://mailer:hunter2@mail:587');
    new Logger('Errors').error(
      { msg: 'Unhandled error [request r-1]', request_id: 'r-1', headers: { authorization: 'Bearer abc' } },
      'Error: boom with password=hunter2\n    at x',
    );
    new Logger('Quiet').debug('not shown at info');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual(
      expect.objectContaining({
        level: 'info',
        context: 'Mailer',
        msg: 'Connecting to smtp://mailer:[REDACTED]@mail:587',
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      }),
    );
    expect(lines[1]).toEqual(
      expect.objectContaining({
        level: 'error',
        context: 'Errors',
        msg: 'Unhandled error [request r-1]',
        request_id: 'r-1',
        headers: { authorization: '[REDACTED]' },
        stack: expect.stringContaining('Error: boom with password=[REDACTED]'),
      }),
    );
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it("maps Nest's verbose to trace and honours silent", () => {
    const trace = capture('trace');
    trace.logger.verbose('detail', 'Ctx');
    expect(trace.lines[0]).toEqual(
      expect.objectContaining({ level: 'trace', msg: 'detail', context: 'Ctx' }),
    );
    const silent = capture('silent');
    silent.logger.fatal('nothing');
    expect(silent.lines).toEqual([]);
    expect(silent.logger.accessLog()).toBeNull();
  });

  it('writes access lines with the fixed fields at info', () => {
    const { logger, lines } = capture('log');
    logger.accessLog()!({
      request_id: 'r-2',
      user_id: 'u-1',
      method: 'GET',
      route: '/api/v1.0/spaces/:slug',
      status: 200,
      duration_ms: 1.5,
    });
    expect(lines[0]).toEqual(
      expect.objectContaining({
        level: 'info',
        context: 'HTTP',
        request_id: 'r-2',
        user_id: 'u-1',
        method: 'GET',
        route: '/api/v1.0/spaces/:slug',
        status: 200,
        duration_ms: 1.5,
        msg: 'GET /api/v1.0/spaces/:slug 200',
      }),
    );
    expect(capture('warn').logger.accessLog()).toBeNull();
  });
});
