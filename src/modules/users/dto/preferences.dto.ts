import { ApiProperty } from '@nestjs/swagger';
import { Validate, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import {
  BooleanField,
  EnumField,
  NestedField,
  StringField,
} from '../../../common/validation/field.decorators';
import { DIGEST_OPTIONS, isTimeZone, THEMES } from '../preferences';

@ValidatorConstraint({ name: 'timeZone' })
class IsTimeZone implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isTimeZone(value);
  }

  defaultMessage(): string {
    return 'timezone must be an IANA time zone name such as Europe/Berlin';
  }
}

export class NotificationPreferences {
  @ApiProperty() email_alerts: boolean;
  @ApiProperty({ enum: DIGEST_OPTIONS }) email_digest: string;
  @ApiProperty() slack_enabled: boolean;
  @ApiProperty() quality_alerts: boolean;
  @ApiProperty() access_requests: boolean;
  @ApiProperty() meeting_reminders: boolean;
  @ApiProperty() email_enabled: boolean;
}

export class UiPreferences {
  @ApiProperty({ enum: THEMES }) theme: string;
  @ApiProperty({ type: String, nullable: true, description: 'A space slug.' }) default_space: string | null;
  @ApiProperty() compact_mode: boolean;
  @ApiProperty({ description: 'IANA time zone used for digests and schedules.' }) timezone: string;
}

export class PreferencesResponse {
  @ApiProperty({ type: NotificationPreferences }) notifications: NotificationPreferences;
  @ApiProperty({ type: UiPreferences }) ui: UiPreferences;
}

export class NotificationPreferencesPatch {
  @BooleanField({ optional: true }) email_alerts?: boolean;
  @EnumField(DIGEST_OPTIONS, { optional: true }) email_digest?: string;
  @BooleanField({ optional: true }) slack_enabled?: boolean;
  @BooleanField({ optional: true }) quality_alerts?: boolean;
  @BooleanField({ optional: true }) access_requests?: boolean;
  @BooleanField({ optional: true }) meeting_reminders?: boolean;
  @BooleanField({ optional: true }) email_enabled?: boolean;
}

export class UiPreferencesPatch {
  @EnumField(THEMES, { optional: true }) theme?: string;

  @StringField({ optional: true, nullable: true, max: 63, pattern: /^[a-z0-9][a-z0-9-]{0,62}$/ })
  default_space?: string | null;

  @BooleanField({ optional: true }) compact_mode?: boolean;

  @Validate(IsTimeZone)
  @StringField({ optional: true, max: 64 })
  timezone?: string;
}

/** Only the keys given change; an unknown key answers 422. */
export class UpdatePreferencesDto {
  @NestedField(() => NotificationPreferencesPatch, { optional: true })
  notifications?: NotificationPreferencesPatch;

  @NestedField(() => UiPreferencesPatch, { optional: true })
  ui?: UiPreferencesPatch;
}
