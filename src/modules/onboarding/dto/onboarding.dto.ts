import { ApiProperty } from '@nestjs/swagger';
import { ArrayUnique, Matches } from 'class-validator';
import { BooleanField, StringArrayField } from '../../../common/validation/field.decorators';
import { CHECKLIST_KEYS } from '../onboarding-checklist';

export const TOUR_KEY = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

export class UpdateOnboardingDto {
  @StringArrayField({
    optional: true,
    maxItems: 100,
    itemMax: 64,
    description:
      'The guided tours the user dismissed (keys chosen by the client, `^[a-z0-9][a-z0-9_.-]{0,63}$`); the list replaces the stored one, `[]` brings every tour back.',
    example: ['catalog-intro', 'quality-checks'],
  })
  @Matches(TOUR_KEY, { each: true, message: 'each tour key must match ^[a-z0-9][a-z0-9_.-]{0,63}$' })
  @ArrayUnique()
  dismissed_tours?: string[];

  @BooleanField({ optional: true, description: '`true` hides the checklist; `false` shows it again.' })
  dismissed?: boolean;
}

export class OnboardingItem {
  @ApiProperty({ enum: CHECKLIST_KEYS })
  key: string;

  @ApiProperty({ example: 'Join or create your first space' })
  title: string;

  @ApiProperty({ description: 'Derived from the real state on every read.' })
  done: boolean;
}

export class OnboardingResponse {
  @ApiProperty({
    type: OnboardingItem,
    isArray: true,
    description: 'In the order they are meant to be done.',
  })
  items: OnboardingItem[];

  @ApiProperty({ description: 'How many items are done.' })
  completed_count: number;

  @ApiProperty({ description: 'How many items there are.' })
  total: number;

  @ApiProperty({ description: 'Every item is done.' })
  completed: boolean;

  @ApiProperty({ description: 'The user hid the checklist.' })
  dismissed: boolean;

  @ApiProperty({ type: String, isArray: true, description: 'Guided tours the user dismissed.' })
  dismissed_tours: string[];
}
