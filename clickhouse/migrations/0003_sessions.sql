-- Sessions: one row per (project, $session_id) once merged, kept by a materialised view on
-- every insert into events (the store's insert skips events already stored, so retried
-- batches add nothing). Aggregate states merge whatever order events arrive in: min/max
-- of the times, sums of the counts, and argMin/argMax of the entry/exit fields over the
-- events with a $current_url. Readers group by session_id with the -Merge functions
-- (db/events/clickhouse/web.ts). Any non-empty $session_id of at most 200 characters.
-- The events' $session_id as a column: web analytics joins page views with sessions by it.
ALTER TABLE {database}.events ADD COLUMN IF NOT EXISTS mat_session_id String MATERIALIZED JSONExtractString(properties, '$session_id');

CREATE TABLE IF NOT EXISTS {database}.sessions
(
    project_id Int32,
    session_id String,
    distinct_id SimpleAggregateFunction(min, String),
    start_timestamp SimpleAggregateFunction(min, DateTime64(6, 'UTC')),
    end_timestamp SimpleAggregateFunction(max, DateTime64(6, 'UTC')),
    pageview_count SimpleAggregateFunction(sum, UInt64),
    screen_count SimpleAggregateFunction(sum, UInt64),
    autocapture_count SimpleAggregateFunction(sum, UInt64),
    -- (url, pathname, referring_domain, utm_source, utm_medium, utm_campaign, utm_term, utm_content)
    entry AggregateFunction(argMin, Tuple(String, String, String, String, String, String, String, String), DateTime64(6, 'UTC')),
    -- (url, pathname)
    exit AggregateFunction(argMax, Tuple(String, String), DateTime64(6, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (project_id, session_id);

-- Backfill once, before the view exists (nothing is inserted while migrations run); skipped
-- when the table has rows already, so that a migration re-run after a crash adds nothing.
INSERT INTO {database}.sessions
SELECT project_id, session_id, min(distinct_id), min(timestamp), max(timestamp),
       toUInt64(countIf(event = '$pageview')), toUInt64(countIf(event = '$screen')), toUInt64(countIf(event = '$autocapture')),
       argMinIfState(tuple(url, pathname, JSONExtractString(properties, '$referring_domain'), JSONExtractString(properties, 'utm_source'),
                           JSONExtractString(properties, 'utm_medium'), JSONExtractString(properties, 'utm_campaign'),
                           JSONExtractString(properties, 'utm_term'), JSONExtractString(properties, 'utm_content')), timestamp, url != ''),
       argMaxIfState(tuple(url, pathname), timestamp, url != '')
FROM (
    SELECT project_id, JSONExtractString(properties, '$session_id') AS session_id, distinct_id, timestamp, event, properties,
           JSONExtractString(properties, '$current_url') AS url,
           if(JSONExtractString(properties, '$pathname') != '', JSONExtractString(properties, '$pathname'), path(JSONExtractString(properties, '$current_url'))) AS pathname
    FROM {database}.events
    WHERE JSONExtractString(properties, '$session_id') != '' AND length(JSONExtractString(properties, '$session_id')) <= 200
      AND (SELECT count() FROM {database}.sessions) = 0
)
GROUP BY project_id, session_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.sessions_mv TO {database}.sessions AS
SELECT project_id, session_id, min(distinct_id) AS distinct_id, min(timestamp) AS start_timestamp, max(timestamp) AS end_timestamp,
       toUInt64(countIf(event = '$pageview')) AS pageview_count, toUInt64(countIf(event = '$screen')) AS screen_count,
       toUInt64(countIf(event = '$autocapture')) AS autocapture_count,
       argMinIfState(tuple(url, pathname, JSONExtractString(properties, '$referring_domain'), JSONExtractString(properties, 'utm_source'),
                           JSONExtractString(properties, 'utm_medium'), JSONExtractString(properties, 'utm_campaign'),
                           JSONExtractString(properties, 'utm_term'), JSONExtractString(properties, 'utm_content')), timestamp, url != '') AS entry,
       argMaxIfState(tuple(url, pathname), timestamp, url != '') AS exit
FROM (
    SELECT project_id, JSONExtractString(properties, '$session_id') AS session_id, distinct_id, timestamp, event, properties,
           JSONExtractString(properties, '$current_url') AS url,
           if(JSONExtractString(properties, '$pathname') != '', JSONExtractString(properties, '$pathname'), path(JSONExtractString(properties, '$current_url'))) AS pathname
    FROM {database}.events
    WHERE JSONExtractString(properties, '$session_id') != '' AND length(JSONExtractString(properties, '$session_id')) <= 200
)
GROUP BY project_id, session_id;
