import { Controller, Get, Header, Headers, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiProperty, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Public } from '../../common/auth/public.decorator';
import { DomainError, Unauthorized } from '../../common/errors/domain-error';
import { NoRateLimit } from '../../common/http/rate-limit.decorators';
import { ApiProblems } from '../../common/openapi/api-problems.decorator';
import { APP_CONFIG, AppConfig } from '../../config/app.config';
import { safeEqual } from '../../platform/crypto/tokens';
import { MetricsService } from '../../platform/metrics/metrics.service';
import { HealthQueries } from './health.queries';

export class HealthResponse {
  @ApiProperty({ example: 'ok' })
  status: 'ok';

  @ApiProperty({ enum: ['postgresql', 'embedded'] })
  database: string;

  @ApiProperty({ type: 'integer', description: 'Seconds since the process started.' })
  uptime_seconds: number;
}

const PROBE_REUSE_MS = 1_000;

@ApiTags('Operations')
@Controller()
export class HealthController {
  private probe: { startedAt: number; result: Promise<unknown> } | null = null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly queries: HealthQueries,
  ) {}

  @Get('health')
  @Public({ ignoresCaller: true })
  @NoRateLimit()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getHealth',
    summary: 'Health check (answers 200 once the database answers)',
    description:
      'The database is pinged at most once a second per worker process; checks in between share the last ping. ' +
      'A credential, if sent, is not looked at.',
  })
  @ApiOkResponse({ type: HealthResponse })
  @ApiProblems(503)
  async health(): Promise<HealthResponse> {
    try {
      await this.databaseProbe();
    } catch {
      throw new DomainError(
        503,
        'service-unavailable',
        'Service Unavailable',
        'The database does not answer.',
      );
    }
    return {
      status: 'ok',
      database: this.config.databaseUrl ? 'postgresql' : 'embedded',
      uptime_seconds: Math.round(process.uptime()),
    };
  }

  // Load balancers and orchestrators poll this hard: concurrent and back-to-back checks within
  // PROBE_REUSE_MS share one database ping instead of sending one each.
  private databaseProbe(): Promise<unknown> {
    const now = Date.now();
    if (!this.probe || now - this.probe.startedAt >= PROBE_REUSE_MS) {
      // No transaction here: the ping runs on the DataSource's manager.
      const result = this.queries.ping(this.dataSource.manager);
      this.probe = { startedAt: now, result };
      // A failed ping is not reused: the next check asks again.
      result.catch(() => {
        if (this.probe?.result === result) this.probe = null;
      });
    }
    return this.probe.result;
  }

  @Get('metrics')
  @Public({ ignoresCaller: true })
  @NoRateLimit()
  @ApiProduces('text/plain')
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description: 'Public unless METRICS_TOKEN is set; then it needs `Authorization: Bearer <METRICS_TOKEN>`.',
  })
  @ApiOkResponse({ description: 'Prometheus text exposition format.', schema: { type: 'string' } })
  @ApiProblems(401)
  async metricsText(
    @Headers('authorization') authorization: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const token = this.config.metricsToken;
    if (token && !safeEqual(authorization ?? '', `Bearer ${token}`)) {
      throw new Unauthorized('The metrics endpoint needs the METRICS_TOKEN bearer token.');
    }
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.send(await this.metrics.text());
  }
}
