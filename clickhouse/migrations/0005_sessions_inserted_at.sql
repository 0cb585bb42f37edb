-- When each session last changed, for batch exports of the sessions model
-- (db/events/export/clickhouse.ts): the latest ingestion time (`inserted_at`) of its events,
-- kept by the materialised view like the other columns. The view is dropped, the column
-- added, the sessions already there given theirs from their events, then the view made again
-- with the column (nothing is inserted while migrations run).
DROP VIEW IF EXISTS {database}.sessions_v2_mv;

ALTER TABLE {database}.sessions_v2 ADD COLUMN IF NOT EXISTS inserted_at SimpleAggregateFunction(max, DateTime64(6, 'UTC'));

-- One more row per session, holding its latest ingestion time and, in every other column,
-- what its merge leaves unchanged: the same first distinct id and times (min and max of the
-- same values), no counts, empty aggregate states. A re-run after a crash changes nothing.
INSERT INTO {database}.sessions_v2 (project_id, session_id, distinct_id, start_timestamp, end_timestamp, last_view_timestamp, inserted_at)
SELECT project_id, session_id, min(distinct_id), min(timestamp), max(timestamp), maxIf(timestamp, event IN ('$pageview', '$screen')), max(inserted_at)
FROM (
    SELECT project_id, JSONExtractString(properties, '$session_id') AS session_id, distinct_id, timestamp, event, inserted_at
    FROM {database}.events
    WHERE JSONExtractString(properties, '$session_id') != '' AND length(JSONExtractString(properties, '$session_id')) <= 200
)
GROUP BY project_id, session_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS {database}.sessions_v2_mv TO {database}.sessions_v2 AS
SELECT project_id, session_id, min(distinct_id) AS distinct_id, argMinIfState(person_id, timestamp, toUInt8(person_id IS NOT NULL)) AS person,
       min(timestamp) AS start_timestamp, max(timestamp) AS end_timestamp, maxIf(timestamp, event IN ('$pageview', '$screen')) AS last_view_timestamp,
       toUInt64(countIf(event = '$pageview')) AS pageview_count, toUInt64(countIf(event = '$screen')) AS screen_count,
       toUInt64(countIf(event = '$autocapture')) AS autocapture_count,
       argMinIfState(url, timestamp, url != '') AS entry_url, argMinIfState(pathname, timestamp, url != '') AS entry_pathname,
       argMinIfState(JSONExtractString(properties, '$referring_domain'), timestamp, url != '') AS entry_referring_domain,
       argMinIfState(JSONExtractString(properties, 'utm_source'), timestamp, url != '') AS entry_utm_source,
       argMinIfState(JSONExtractString(properties, 'utm_medium'), timestamp, url != '') AS entry_utm_medium,
       argMinIfState(JSONExtractString(properties, 'utm_campaign'), timestamp, url != '') AS entry_utm_campaign,
       argMinIfState(JSONExtractString(properties, 'utm_term'), timestamp, url != '') AS entry_utm_term,
       argMinIfState(JSONExtractString(properties, 'utm_content'), timestamp, url != '') AS entry_utm_content,
       argMaxIfState(url, timestamp, url != '') AS exit_url, argMaxIfState(pathname, timestamp, url != '') AS exit_pathname,
       max(inserted_at) AS inserted_at
FROM (
    SELECT project_id, JSONExtractString(properties, '$session_id') AS session_id, distinct_id, person_id, timestamp, event, properties, inserted_at,
           JSONExtractString(properties, '$current_url') AS url,
           if(JSONExtractString(properties, '$pathname') != '', JSONExtractString(properties, '$pathname'), path(JSONExtractString(properties, '$current_url'))) AS pathname
    FROM {database}.events
    WHERE JSONExtractString(properties, '$session_id') != '' AND length(JSONExtractString(properties, '$session_id')) <= 200
)
GROUP BY project_id, session_id;
