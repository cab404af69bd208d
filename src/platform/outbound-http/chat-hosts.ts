/**
 * The public hosts each chat platform's incoming webhooks live on: a chat
 * channel's URL must be on its platform's list unless
 * ALLOW_PRIVATE_NETWORK_TARGETS is set (tests, development). An entry with a
 * leading dot matches any name under it; others match exactly.
 *
 * - Slack incoming webhooks: `hooks.slack.com` (and GovSlack's `hooks.slack-gov.com`).
 * - Microsoft Teams workflows (Power Automate "When a Teams webhook request is received"):
 *   `*.environment.api.powerplatform.com` and the older `*.logic.azure.com`; the retired Office 365
 *   connectors' `*.webhook.office.com` still answer for some tenants.
 * - Google Chat incoming webhooks: `chat.googleapis.com`.
 */
export const CHAT_PLATFORM_HOSTS = {
  slack: ['hooks.slack.com', 'hooks.slack-gov.com'],
  teams: ['.environment.api.powerplatform.com', '.logic.azure.com', '.webhook.office.com'],
  google_chat: ['chat.googleapis.com'],
} as const;

export type ChatPlatform = keyof typeof CHAT_PLATFORM_HOSTS;

/** Whether a normalised host is one of the platform's webhook hosts (any platform when left out). */
export function isChatPlatformHost(host: string, platform?: ChatPlatform): boolean {
  const lists = platform ? [CHAT_PLATFORM_HOSTS[platform]] : Object.values(CHAT_PLATFORM_HOSTS);
  return lists.some((list) =>
    list.some((entry) =>
      entry.startsWith('.') ? host.endsWith(entry) && host.length > entry.length : host === entry,
    ),
  );
}
