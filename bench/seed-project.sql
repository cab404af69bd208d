-- ../shared/bench/seed-project.sql adapted to this schema (product_counts' shard):
--   SEED_PROJECT_SQL=$PWD/bench/seed-project.sql ../shared/bench/ab.sh .
-- Bulk seed for the project's own schema: the same fixture as seed-peer.sql.
-- Run by seed-project.sh after the bench user and space were created through the
-- API; psql variables: bench_id (uuid), space_id (uuid).
--
-- Volumes: 10,000 users (bench user included), 1 bench space with 100,000
-- products (+ ~150,000 owner/steward rows), 100,000 notifications for the
-- bench user (~30% unread, 11 types), 100,000 incidents in the bench space.
-- Random but reproducible (setseed). Ids of seeded rows are md5-derived UUIDs
-- so that pgbench scripts can address row i as pg_temp.v4('product-' || i).

\set ON_ERROR_STOP on
SELECT setseed(0.42) \gset seed_

CREATE FUNCTION pg_temp.pick(arr text[]) RETURNS text
    LANGUAGE sql VOLATILE AS $$ SELECT arr[1 + floor(random() * array_length(arr, 1))::int] $$;

-- Product i's name, deterministic so incidents can name products in their blast radius.
CREATE FUNCTION pg_temp.product_name(i int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT (ARRAY['sales','finance','marketing','logistics','hr','product','support','risk'])[1 + i % 8]
        || '.' ||
        (ARRAY['orders','customers','invoices','shipments','payments','sessions','events','tickets',
               'contracts','campaigns','leads','inventory','returns','refunds','accounts','employees',
               'suppliers','forecasts','churn_scores','daily_kpis'])[1 + (i / 8) % 20]
        || '_' || lpad(i::text, 6, '0') $$;


-- RFC 4122 version-4 shaped ids derived from a name (the API validates the version and variant
-- nibbles, so plain md5 uuids would be refused with 422 on routes that take ids).
CREATE FUNCTION pg_temp.v4(name text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $f$
  SELECT (substr(h, 1, 12) || '4' || substr(h, 14, 3) || '8' || substr(h, 18, 15))::uuid FROM (SELECT md5(name) AS h) x
$f$;

-- Metadata values of the bench space by name (seeded through the API).
CREATE FUNCTION pg_temp.level(tbl text, lname text) RETURNS uuid LANGUAGE plpgsql STABLE AS $f$
DECLARE r uuid;
BEGIN
  EXECUTE format('SELECT id FROM %I WHERE space_id = %L AND name = $1 LIMIT 1', tbl, current_setting('seed.space_id')) INTO r USING lname;
  RETURN r;
END $f$;
CREATE FUNCTION pg_temp.status(sname text) RETURNS uuid LANGUAGE sql STABLE AS $f$
  SELECT id FROM maintenance_statuses WHERE space_id = current_setting('seed.space_id')::uuid AND (slug = sname OR lower(name) = sname) LIMIT 1
$f$;
SELECT set_config('seed.space_id', :'space_id', false);

-- ---------------------------------------------------------------- users ----
INSERT INTO users (id, email, password_hash, first_name, last_name, is_active, created_at, last_login)
SELECT pg_temp.v4('user-' || i),
       'user' || i || '@example.com',
       (SELECT password_hash FROM users WHERE id = :'bench_id'),
       pg_temp.pick(ARRAY['Ada','Alan','Grace','Edsger','Barbara','Donald','Frances','Ken','Margaret','Dennis',
                          'Radia','Tim','Shafi','Leslie','Sophie','John','Hedy','Niklaus','Katherine','Linus']),
       pg_temp.pick(ARRAY['Lovelace','Turing','Hopper','Dijkstra','Liskov','Knuth','Allen','Thompson','Hamilton',
                          'Ritchie','Perlman','Berners-Lee','Goldwasser','Lamport','Wilson','Backus','Lamarr',
                          'Wirth','Johnson','Torvalds','Codd','Stonebraker','Gray','Chen','Bachman']),
       random() > 0.02,
       now() - random() * interval '3 years',
       CASE WHEN random() < 0.8 THEN now() - random() * interval '60 days' END
FROM generate_series(2, 10000) AS i;

-- A second space the bench user is not a member of (non-member checks answer 404).
INSERT INTO spaces (id, name, slug, description)
VALUES (pg_temp.v4('space-other'), 'Other team', 'other-team', 'A space the bench user cannot see');
INSERT INTO space_memberships (space_id, user_id, role)
VALUES (pg_temp.v4('space-other'), pg_temp.v4('user-2'), 'admin');

-- 300 more members of the bench space (the bench user is its admin already).
INSERT INTO space_memberships (space_id, user_id, role)
SELECT :'space_id', pg_temp.v4('user-' || i), CASE WHEN i % 5 = 0 THEN 'editor' ELSE 'viewer' END
FROM generate_series(2, 301) AS i;

-- ------------------------------------------------------------- products ----
WITH schemas(k, cols) AS (
    VALUES
    (0, '[{"name":"id","type":"bigint"},{"name":"customer_id","type":"bigint"},{"name":"amount","type":"numeric(12,2)"},{"name":"currency","type":"char(3)"},{"name":"created_at","type":"timestamptz"}]'::jsonb),
    (1, '[{"name":"id","type":"uuid"},{"name":"email","type":"text","pii":true},{"name":"country","type":"text"},{"name":"segment","type":"text"},{"name":"signed_up_at","type":"timestamptz"},{"name":"is_active","type":"boolean"}]'::jsonb),
    (2, '[{"name":"event_id","type":"uuid"},{"name":"session_id","type":"uuid"},{"name":"event_type","type":"text"},{"name":"payload","type":"jsonb"},{"name":"occurred_at","type":"timestamptz"}]'::jsonb),
    (3, '[{"name":"day","type":"date"},{"name":"region","type":"text"},{"name":"revenue","type":"numeric"},{"name":"orders","type":"integer"},{"name":"aov","type":"numeric"},{"name":"margin","type":"numeric"},{"name":"returns","type":"integer"}]'::jsonb),
    (4, '[{"name":"sku","type":"text"},{"name":"warehouse","type":"text"},{"name":"on_hand","type":"integer"},{"name":"reserved","type":"integer"}]'::jsonb),
    (5, '[{"name":"employee_id","type":"bigint"},{"name":"full_name","type":"text","pii":true},{"name":"department","type":"text"},{"name":"salary","type":"numeric","pii":true},{"name":"hired_on","type":"date"},{"name":"manager_id","type":"bigint"}]'::jsonb),
    (6, '[{"name":"ticket_id","type":"bigint"},{"name":"priority","type":"text"},{"name":"status","type":"text"},{"name":"opened_at","type":"timestamptz"},{"name":"closed_at","type":"timestamptz"},{"name":"csat","type":"smallint"}]'::jsonb),
    (7, '[{"name":"model_version","type":"text"},{"name":"customer_id","type":"bigint"},{"name":"score","type":"double precision"},{"name":"scored_at","type":"timestamptz"}]'::jsonb)
)
INSERT INTO products (id, space_id, name, description, product_type, domain, tags, criticality_id, sensitivity_id,
                      maintenance_status_id, sla_freshness_minutes, attributes, logging_event_types,
                      logging_last_reviewed, logging_notes, created_at, updated_at)
SELECT pg_temp.v4('product-' || g.i),
       :'space_id',
       pg_temp.product_name(g.i),
       'Curated ' || replace(regexp_replace(split_part(pg_temp.product_name(g.i), '.', 2), '_[0-9]+$', ''), '_', ' ')
           || ' for the ' || split_part(pg_temp.product_name(g.i), '.', 1)
           || ' domain, loaded from ' || pg_temp.pick(ARRAY['Snowflake','BigQuery','PostgreSQL','Kafka','S3 parquet','Salesforce'])
           || ' and refreshed ' || pg_temp.pick(ARRAY['hourly','daily','every 15 minutes','weekly']) || '.',
       (ARRAY['dataset','dataset','dataset','dataset','dashboard','ml_model','pipeline','api','ai_system','other'])[1 + g.i % 10],
       split_part(pg_temp.product_name(g.i), '.', 1),
       ARRAY[pg_temp.pick(ARRAY['gold','silver','bronze']),
             pg_temp.pick(ARRAY['pii','finance','gdpr','sox','realtime','batch','ml','kpi','marketing','ops']),
             pg_temp.pick(ARRAY['core','experimental','external','internal','deprecated'])],
       pg_temp.level('criticality_levels', pg_temp.pick(ARRAY['Critical','High','Medium','Medium','Low','Low'])),
       pg_temp.level('sensitivity_levels', pg_temp.pick(ARRAY['Public','Internal','Internal','Confidential','Restricted'])),
       pg_temp.status(pg_temp.pick(ARRAY['active','active','active','under_maintenance','deprecated'])),
       CASE WHEN random() < 0.7 THEN (ARRAY[15, 60, 240, 1440])[1 + g.i % 4] END,
       jsonb_build_object(
           'schema', jsonb_build_object('columns', s.cols),
           'row_count', floor(random() * 50000000)::bigint,
           'source_system', pg_temp.pick(ARRAY['snowflake','bigquery','postgres','kafka','s3','salesforce']),
           'refresh', pg_temp.pick(ARRAY['hourly','daily','streaming','weekly']),
           'owner_team', pg_temp.pick(ARRAY['data-platform','analytics','growth','fin-eng','ml-platform'])),
       CASE WHEN g.i % 10 = 8 THEN ARRAY['inference','prompt','feedback'] ELSE '{}'::text[] END,
       CASE WHEN g.i % 10 = 8 THEN now() - random() * interval '90 days' END,
       CASE WHEN g.i % 10 = 8 THEN 'Logs retained 6 months; reviewed quarterly.' END,
       now() - random() * interval '2 years',
       now() - random() * interval '30 days'
FROM generate_series(1, 100000) AS g(i)
JOIN schemas s ON s.k = g.i % 8;

-- Every product has an owner; half also have a steward.
INSERT INTO product_roles (product_id, user_id, role)
SELECT pg_temp.v4('product-' || i), pg_temp.v4('user-' || (2 + floor(random() * 9999)::int)), 'owner'
FROM generate_series(1, 100000) AS i;
INSERT INTO product_roles (product_id, user_id, role)
SELECT pg_temp.v4('product-' || i), pg_temp.v4('user-' || (2 + floor(random() * 9999)::int)), 'steward'
FROM generate_series(1, 100000, 2) AS i
ON CONFLICT DO NOTHING;

-- product_counts is sharded (decision 25): the seeded count is the space's shard 0.
INSERT INTO product_counts (space_id, shard, total)
SELECT :'space_id', 0, count(*) FROM products WHERE space_id = :'space_id'
ON CONFLICT (space_id, shard) DO UPDATE SET total = EXCLUDED.total;

-- -------------------------------------------------------- notifications ----
INSERT INTO notifications (user_id, type, title, message, read, data, created_at)
SELECT :'bench_id',
       n.type,
       CASE n.type
           WHEN 'quality_alert'      THEN 'Quality check failed on ' || pg_temp.product_name(n.p)
           WHEN 'quality_resolved'   THEN 'Quality alert resolved on ' || pg_temp.product_name(n.p)
           WHEN 'access_submitted'   THEN 'New access request for ' || pg_temp.product_name(n.p)
           WHEN 'access_approved'    THEN 'Access approved to ' || pg_temp.product_name(n.p)
           WHEN 'access_rejected'    THEN 'Access rejected to ' || pg_temp.product_name(n.p)
           WHEN 'issue_assigned'     THEN 'A ticket was assigned to you'
           WHEN 'issue_mentioned'    THEN 'You were mentioned in a ticket'
           WHEN 'meeting_invited'    THEN 'Invitation: data review'
           WHEN 'meeting_reminder'   THEN 'Reminder: data review in 15 minutes'
           WHEN 'action_item_due'    THEN 'An action item is due today'
           ELSE 'SLA breach on ' || pg_temp.product_name(n.p)
       END,
       'See ' || pg_temp.product_name(n.p) || ' for details.',
       n.r >= 0.30,
       jsonb_build_object('product_id', pg_temp.v4('product-' || n.p),
                          'alert_id', pg_temp.v4('alert-' || n.i),
                          'severity', pg_temp.pick(ARRAY['critical','high','medium','low'])),
       now() - random() * interval '365 days'
FROM (
    SELECT i,
           pg_temp.pick(ARRAY['quality_alert','quality_resolved','access_submitted','access_approved',
                               'access_rejected','issue_assigned','issue_mentioned','meeting_invited',
                               'meeting_reminder','action_item_due','contract_violation']) AS type,
           random() AS r,
           1 + floor(random() * 100000)::int AS p
    FROM generate_series(1, 100000) AS i
) AS n;

DELETE FROM notification_counters WHERE user_id = :'bench_id';
-- notification_counters is sharded too: the seeded counts are each type's shard 0.
INSERT INTO notification_counters (user_id, type, shard, unread, total)
SELECT user_id, type, 0, count(*) FILTER (WHERE NOT read), count(*) FROM notifications
WHERE user_id = :'bench_id' GROUP BY user_id, type;

-- ------------------------------------------------------------ incidents ----
INSERT INTO quality_incidents (space_id, title, description, status, severity, alert_count, root_cause,
                       root_product_id, blast_radius_snapshot, created_at, updated_at, resolved_at)
SELECT :'space_id',
       x.alert_type || ' on ' || pg_temp.product_name(x.p),
       'Correlated alerts starting at ' || pg_temp.product_name(x.p) || '.',
       x.status,
       x.severity,
       1 + floor(random() * 20)::int,
       CASE WHEN x.status = 'resolved' THEN pg_temp.pick(ARRAY[
           'Upstream schema change dropped a column', 'Late-arriving partition from the source',
           'Duplicate events from a replayed Kafka topic', 'Expired credentials on the connector'])
       END,
       pg_temp.v4('product-' || x.p),
       to_jsonb(ARRAY(SELECT pg_temp.product_name(1 + ((x.p + k * 7919) % 100000))
             FROM generate_series(1, x.blast) AS k)),
       x.created_at,
       x.created_at + interval '1 hour',
       CASE WHEN x.status = 'resolved' THEN x.created_at + random() * interval '48 hours' END
FROM (
    SELECT i,
           1 + floor(random() * 100000)::int AS p,
           floor(random() * 6)::int AS blast,
           pg_temp.pick(ARRAY['quality_check_failed','freshness_breach','schema_change','anomaly']) AS alert_type,
           pg_temp.pick(ARRAY['resolved','resolved','resolved','resolved','resolved','resolved','resolved',
                               'investigating','investigating','open']) AS status,
           pg_temp.pick(ARRAY['critical','high','high','medium','medium','low']) AS severity,
           now() - random() * interval '2 years' AS created_at
    FROM generate_series(1, 100000) AS i
) AS x;

DELETE FROM quality_incident_counts WHERE space_id = :'space_id';
INSERT INTO quality_incident_counts (space_id, status, shard, total)
SELECT space_id, status, 0, count(*) FROM quality_incidents WHERE space_id = :'space_id' GROUP BY space_id, status;
