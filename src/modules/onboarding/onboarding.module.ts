import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OnboardingState } from './entities/onboarding-state.entity';
import { OnboardingController } from './onboarding.controller';
import { OnboardingService } from './onboarding.service';

/** `GET/PATCH /users/me/onboarding`. */
@Module({
  imports: [TypeOrmModule.forFeature([OnboardingState])],
  controllers: [OnboardingController],
  providers: [OnboardingService],
})
export class OnboardingModule {}
