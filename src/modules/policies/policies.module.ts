import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { NotificationsModule } from '../notifications/notifications.module';
import { QualityModule } from '../quality/quality.module';
import { PolicyEvaluation } from './entities/policy-evaluation.entity';
import { Policy } from './entities/policy.entity';
import { PoliciesController, ProductViolationsController } from './policies.controller';
import { PolicyQueries } from './policies.queries';
import { PoliciesService } from './policies.service';
import { PolicyAutomation } from './policy-automation.service';
import { PolicyEvaluationsService } from './policy-evaluations.service';
import { PolicyEvaluator } from './policy-evaluator.service';

/** Policies as CEL rules, their evaluations (on demand and on every relevant change) and compliance reads. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Policy, PolicyEvaluation]),
    CatalogModule,
    QualityModule,
    NotificationsModule,
  ],
  controllers: [PoliciesController, ProductViolationsController],
  providers: [PoliciesService, PolicyEvaluationsService, PolicyEvaluator, PolicyAutomation, PolicyQueries],
  exports: [PolicyEvaluationsService],
})
export class PoliciesModule {}
