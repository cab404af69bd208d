/**
 * The document's top-level `tags`: every tag an operation uses (`@ApiTags`)
 * needs a description here; openapi.e2e-spec fails on one without.
 */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  'AI administration':
    'The LLM provider configuration, model profiles and routing, prompts and their versions, AI budgets and feature switches (superadmin).',
  'AI evaluations': 'Runs of the deterministic AI eval suite and their per-case results (superadmin).',
  'AI feedback': 'Ratings and comments users give on AI answers, with acceptance statistics and exports.',
  'AI logs': 'The log of AI calls, redacted, and token usage (superadmin).',
  'API keys': 'Personal API keys: bearer credentials for scripts, each with a rate-limit tier.',
  'Access requests': 'Requests for access to a data product, and their approval or rejection.',
  Accounts: 'Registration, sign-in (OAuth2 password form), token refresh, sign-out and the signed-in user.',
  Administration:
    'Impersonation, the audit log, SCIM provisioning tokens and permission exports (superadmin).',
  Attachments:
    'Files attached to data products and tickets: upload, listing, signed download links and download.',
  'Chat channels':
    "Slack, Microsoft Teams and Google Chat channels a space's incidents, alerts, violations and failures are posted to.",
  Connectors:
    'Connections to source databases, their tests, and harvests of their tables into dataset products.',
  Credentials: 'Secrets stored for tool providers and connectors; their values are never answered.',
  'Data products': 'The catalog: the data products of a space.',
  'Embedding configuration':
    'The embedding provider used for semantic search, its test and product re-indexing.',
  Instances: 'Instances, each with a database of its own, and who may reach them (superadmin).',
  'Issue tracker': 'Tickets of a space, their comments and links.',
  'Learning integration': 'The learning-system webhook that reports users’ AI literacy training.',
  Lineage: 'Data flows between the products of a space.',
  'Lineage runs':
    'Runs of OpenLineage jobs and their health: states, durations and errors, per job and per product.',
  'Metadata configuration':
    'The metadata values a space offers: criticality levels, maintenance statuses and the like.',
  Notifications: 'My notifications: list, unread counts, a live stream and read marks.',
  OpenLineage:
    'OpenLineage events from Airflow, dbt, Spark and other producers, the namespaces a space takes them for, and the column changes they reveal.',
  Operations: 'Health check and Prometheus metrics for operators.',
  'Pipeline authoring': 'AI-assisted pipeline-authoring tasks, their web searches, evidence and consents.',
  Policies: 'Governance policies written as CEL rules, their evaluation and compliance.',
  Preferences: 'My preferences, notification settings included.',
  'Quality alerts': 'Alerts pushed by monitoring tools or raised by checks, and their AI explanations.',
  'Quality checks': 'Quality checks on source data, their runs and history.',
  'Quality incidents': 'Incidents grouping alerts, with their timeline, blast radius and linked tickets.',
  'Rate limits': 'The caller’s rate limits and what is left of them.',
  Reports: 'Scheduled reports of a space, sent by email, and their previews.',
  'Risk register': 'The risks of a space, by likelihood and impact, with templates.',
  SCIM: 'SCIM 2.0 (RFC 7643/7644) provisioning of users and groups by an identity provider, with a SCIM token.',
  SSO: 'Single sign-on: SAML and OIDC identity providers and the sign-in flows.',
  Search: 'Search across products, standards pages, risks, policies, incidents and tickets.',
  'Space members': 'Who belongs to a space, and with which role.',
  Spaces: 'Spaces: the unit of ownership and access of everything else.',
  'Standards pages': 'Standards pages of a space: drafts, publication and history.',
  'Tool providers':
    'External tool providers (MCP over stdio) the AI may use, and their enablement per space.',
  Users: 'User profiles, search and administration.',
  'Visual query': 'Queries built visually and run on a connector’s database.',
  Webhooks: 'Outbound webhooks of a space: subscriptions, tests and the delivery log.',
};
