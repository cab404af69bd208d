/** The in-platform notification types of the specification, with the data each carries. */
export interface NotificationDataMap {
  quality_alert: {
    incident_id?: string;
    alert_id?: string;
    product_id?: string;
    severity?: string;
    space_id?: string;
  };
  quality_resolved: { incident_id?: string; alert_id?: string; product_id?: string; space_id?: string };
  access_submitted: { request_id: string; product_id: string; space_id: string };
  access_approved: { request_id: string; product_id: string; space_id: string };
  access_rejected: { request_id: string; product_id: string; space_id: string };
  issue_assigned: { ticket_id: string; space_id: string };
  issue_mentioned: { ticket_id: string; comment_id?: string; space_id: string };
  meeting_invited: { meeting_id: string; space_id?: string };
  meeting_reminder: { meeting_id: string; space_id?: string };
  action_item_due: { action_item_id: string; space_id?: string };
  contract_violation: { contract_id?: string; policy_id?: string; product_id?: string; space_id?: string };
  schema_changed: { product_id: string; space_id: string; change_id: string };
  chat_channel_disabled: { chat_channel_id: string; space_id: string };
}

export type NotificationType = keyof NotificationDataMap;

export const NOTIFICATION_TYPES = [
  'quality_alert',
  'quality_resolved',
  'access_submitted',
  'access_approved',
  'access_rejected',
  'issue_assigned',
  'issue_mentioned',
  'meeting_invited',
  'meeting_reminder',
  'action_item_due',
  'contract_violation',
  'schema_changed',
  'chat_channel_disabled',
] as const satisfies readonly NotificationType[];

/** The preference (under `notifications.`) that governs the email of each type, if any. */
export const EMAIL_CATEGORY: Partial<
  Record<NotificationType, 'quality_alerts' | 'access_requests' | 'meeting_reminders'>
> = {
  quality_alert: 'quality_alerts',
  quality_resolved: 'quality_alerts',
  contract_violation: 'quality_alerts',
  access_submitted: 'access_requests',
  access_approved: 'access_requests',
  access_rejected: 'access_requests',
  meeting_invited: 'meeting_reminders',
  meeting_reminder: 'meeting_reminders',
  action_item_due: 'meeting_reminders',
};
