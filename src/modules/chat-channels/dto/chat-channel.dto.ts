import { ApiProperty } from '@nestjs/swagger';
import { SlugParams } from '../../../common/http/slug-params.dto';
import {
  BooleanField,
  EnumArrayField,
  EnumField,
  StringField,
  UuidField,
} from '../../../common/validation/field.decorators';
import { OUTBOUND_POLICY_NOTE } from '../../../platform/outbound-http/outbound-url-policy';
import { CHAT_EVENT_TYPES, CHAT_SEVERITIES } from '../chat-notice';
import { CHAT_KINDS } from '../entities/chat-channel.entity';

const URL_NOTE =
  "The platform's incoming-webhook URL: Slack `https://hooks.slack.com/services/…`; a Teams workflow's " +
  '"When a Teams webhook request is received" URL (`*.environment.api.powerplatform.com`, `*.logic.azure.com`, or a ' +
  'legacy `*.webhook.office.com`); Google Chat `https://chat.googleapis.com/v1/spaces/…/messages?key=…`. Another host ' +
  'is refused (422, reason `host_not_allowed`) unless ALLOW_PRIVATE_NETWORK_TARGETS is set. The URL is the ' +
  'credential: it is stored sealed and never returned or logged (answers show `url_set` and `url_host`). ' +
  OUTBOUND_POLICY_NOTE;

const EVENT_TYPES_NOTE =
  '`incident.opened`, `incident.escalated` (its severity was raised, by a joining alert or by hand), ' +
  '`incident.resolved`, `alert.raised`, `policy.violated`, `access_request.submitted`/`approved`/`rejected`, ' +
  '`webhook.failing` (a webhook began failing or was disabled), `connector.failing` (a harvest failed after a ' +
  'success), `lineage.run_failed`. The events of one incident (opened, escalated, alerts raised) are coalesced: ' +
  'one message per incident per minute at most, later ones folded into the next.';

const MIN_SEVERITY_NOTE =
  'Events with a severity (alerts, incidents, policy violations) below it are not sent; events without one always are.';

export class CreateChatChannelDto {
  @StringField({ min: 1, max: 200 })
  name: string;

  @EnumField(CHAT_KINDS, { enumName: 'ChatChannelKind' })
  kind: string;

  @StringField({ min: 1, max: 2000, description: URL_NOTE })
  url: string;

  @EnumArrayField(CHAT_EVENT_TYPES, { enumName: 'ChatEventType', minItems: 1, description: EVENT_TYPES_NOTE })
  event_types: string[];

  @EnumField(CHAT_SEVERITIES, {
    optional: true,
    default: 'low',
    enumName: 'ChatSeverity',
    description: MIN_SEVERITY_NOTE,
  })
  min_severity?: string;

  @BooleanField({ optional: true, default: true })
  is_enabled?: boolean;
}

/** Declared apart from create: the kind is fixed once created (its URL's format goes with it). */
export class UpdateChatChannelDto {
  @StringField({ optional: true, min: 1, max: 200 })
  name?: string;

  @StringField({ optional: true, min: 1, max: 2000, description: URL_NOTE })
  url?: string;

  @EnumArrayField(CHAT_EVENT_TYPES, { optional: true, enumName: 'ChatEventType', minItems: 1 })
  event_types?: string[];

  @EnumField(CHAT_SEVERITIES, { optional: true, enumName: 'ChatSeverity', description: MIN_SEVERITY_NOTE })
  min_severity?: string;

  @BooleanField({
    optional: true,
    description: 'Enabling again clears `failing_since` and the count of failed messages.',
  })
  is_enabled?: boolean;
}

export class ChatChannelResponse {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: CHAT_KINDS, enumName: 'ChatChannelKind' }) kind: string;
  @ApiProperty({ description: 'Always true: the URL itself is never returned.' }) url_set: boolean;
  @ApiProperty({ example: 'hooks.slack.com', description: "The URL's host." }) url_host: string;
  @ApiProperty({ enum: CHAT_EVENT_TYPES, enumName: 'ChatEventType', isArray: true }) event_types: string[];
  @ApiProperty({ enum: CHAT_SEVERITIES, enumName: 'ChatSeverity' }) min_severity: string;
  @ApiProperty({
    description:
      'False when switched off, or when the last 5 messages failed after their retries (the channel was disabled ' +
      'and the space admins notified).',
  })
  is_enabled: boolean;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the current run of messages failing after their retries began; null once one is sent.',
  })
  failing_since: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ChatChannelTestResponse {
  @ApiProperty() success: boolean;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: "The platform's HTTP status; null when none came.",
  })
  status_code: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed (never the URL).' })
  error: string | null;
}

export class ChatChannelParams extends SlugParams {
  @UuidField()
  id: string;
}
