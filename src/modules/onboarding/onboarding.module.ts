import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '../catalog/catalog.module';
import { QualityModule } from '../quality/quality.module';
import { SpacesModule } from '../spaces/spaces.module';
import { UsersModule } from '../users/users.module';
import { OnboardingState } from './entities/onboarding-state.entity';
import { OnboardingController } from './onboarding.controller';
import { OnboardingService } from './onboarding.service';

/** `GET/PATCH /users/me/onboarding`: the checklist asks each owning module through its exported service. */
@Module({
  imports: [
    TypeOrmModule.forFeature([OnboardingState]),
    UsersModule,
    SpacesModule,
    CatalogModule,
    QualityModule,
  ],
  controllers: [OnboardingController],
  providers: [OnboardingService],
})
export class OnboardingModule {}
