import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthQueries } from './health.queries';

@Module({ controllers: [HealthController], providers: [HealthQueries] })
export class HealthModule {}
