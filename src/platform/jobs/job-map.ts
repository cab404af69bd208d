/**
 * Every background job, by name (`<context>.<task>`) with its payload. Each
 * module registers its own handlers (JobRunner.register) and enqueues, both
 * type-checked against this map, as are cron schedules; a job declared here
 * with no handler fails the boot. Adding a job means adding its payload here
 * and its catalog entry below (the compiler insists).
 */
export interface JobMap {
  // Platform housekeeping.
  'platform.retention': ScheduledPayload;
  'platform.idempotency-sweep': ScheduledPayload;

  // Accounts and single sign-on.
  'accounts.cleanup': ScheduledPayload;
  'sso.cleanup': ScheduledPayload;

  // Notifications and webhooks.
  'notifications.digest': { user_id: string };
  'webhooks.deliver': { delivery_id: string };
  'chat.deliver': { message_id: string };

  // Attachments.
  'attachments.purge-object': { storage_key: string };
  'attachments.reap-upload': { storage_key: string };
  'attachments.sweep-orphans': ScheduledPayload;

  // Data quality.
  'quality.checks.sweep': ScheduledPayload;
  'quality.checks.run': { check_id: string };

  // Governance: policies and scheduled reports.
  'policies.evaluate': { policy_id: string };
  'policies.evaluate-space': { space_id: string };
  'reports.dispatch': ScheduledPayload;
  'reports.send-scheduled': { schedule_id: string; scheduled_for: string };

  // AI, embeddings and search.
  'ai.retention': ScheduledPayload;
  'ai_evals.run': { run_id: string };
  'embeddings.reindex': { scope: string; item_type: SemanticItemTypeName; run_id: string };
  'embeddings.refresh': { item_type: SemanticItemTypeName; item_ids: string[] };
  'embeddings.purge-removals': ScheduledPayload;
  'search.prune-changes': ScheduledPayload;
  'integrations.inbound_messages.purge': ScheduledPayload;

  // OpenLineage ingestion.
  'openlineage.prune-events': ScheduledPayload;
}

/** What a cron occurrence enqueues; a scheduled job run by hand (tests, tooling) may leave it out. */
export interface ScheduledPayload {
  scheduled_for?: string;
}

/** The embeddings module's SemanticItemType, spelled out: the platform does not import modules. */
type SemanticItemTypeName = 'product' | 'standard_page';

export type JobName = keyof JobMap;

export type JobPayload<K extends JobName> = JobMap[K];

/** The jobs a cron schedule may run: those whose payload is what a schedule enqueues. */
export type ScheduledJobName = {
  [K in JobName]: ScheduledPayload extends JobMap[K] ? K : never;
}[JobName];

export interface JobCatalogEntry {
  description: string;
}

export const JOB_CATALOG = {
  'platform.retention': {
    description: 'Hourly: removes finished jobs, published outbox events and delivered mail past 14 days.',
  },
  'platform.idempotency-sweep': { description: 'Hourly: removes idempotency keys past their 24 hours.' },
  'accounts.cleanup': {
    description: 'Daily: removes sessions, reset tokens and failed sign-ins that can no longer matter.',
  },
  'sso.cleanup': {
    description: 'Daily: removes expired pending logins, one-time codes and remembered SAML assertion IDs.',
  },
  'notifications.digest': { description: "Sends one user's notification digest by email." },
  'webhooks.deliver': { description: 'Sends one webhook delivery; retried on the webhook backoff schedule.' },
  'chat.deliver': {
    description:
      "Posts one message to a chat channel; each retry (after 1 s, 5 s, 25 s or the platform's Retry-After) is a job of its own.",
  },
  'attachments.purge-object': {
    description: "Deletes a deleted attachment's stored object (the safety net for the delete after commit).",
  },
  'attachments.reap-upload': {
    description: 'Deletes an uploaded object that no attachment names an hour after its upload began.',
  },
  'attachments.sweep-orphans': {
    description: 'Hourly: deletes attachments whose product, ticket or space is gone.',
  },
  'quality.checks.sweep': {
    description: 'Every minute: enqueues one run per quality check whose schedule is due.',
  },
  'quality.checks.run': { description: 'Runs one scheduled occurrence of a quality check.' },
  'policies.evaluate': { description: 'Evaluates a new or changed policy against its space.' },
  'policies.evaluate-space': {
    description: "Re-evaluates a space's enabled policies after a metadata value was renamed or deleted.",
  },
  'reports.dispatch': {
    description: 'Every minute: enqueues one send per report schedule that is due.',
  },
  'reports.send-scheduled': { description: 'Builds and mails one occurrence of a scheduled report.' },
  'ai.retention': {
    description: 'Daily: removes AI logs and workflow runs older than AI_LOG_RETENTION_DAYS.',
  },
  'ai_evals.run': { description: 'Runs the cases of one AI eval run.' },
  'embeddings.reindex': {
    description: 'Embeds every item of one type in one scope again (started by an admin; resumable).',
  },
  'embeddings.refresh': { description: 'Embeds items that changed (a product, a published standards page).' },
  'embeddings.purge-removals': { description: 'Hourly: forgets vector removals older than a day.' },
  'search.prune-changes': {
    description: "Every ten minutes: prunes the search cache's log of changes.",
  },
  'integrations.inbound_messages.purge': {
    description: 'Hourly: forgets inbound learning-integration message ids past their retention.',
  },
  'openlineage.prune-events': {
    description: 'Hourly: removes applied raw OpenLineage events past OPENLINEAGE_RETENTION_DAYS.',
  },
} satisfies Record<JobName, JobCatalogEntry>;

/** The declared jobs that `handled` leaves without a handler. */
export function unhandledJobs(handled: ReadonlySet<string>): JobName[] {
  return (Object.keys(JOB_CATALOG) as JobName[]).filter((name) => !handled.has(name));
}
