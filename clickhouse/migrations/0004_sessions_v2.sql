-- Sessions, second shape, so that the overview and the entry and exit pages answer from the
-- sessions alone (read with FINAL: one row per session without a GROUP BY) instead of
-- joining every page view with them (db/events/clickhouse/web.ts):
--   * the session's person (its earliest event's that has one), with person_overrides below
--     for persons merged since: a visitor is the person, or the distinct id without one;
--   * the time of its last page view or screen, to tell the sessions whose views all lie in
--     a range from the few that straddle one of its ends;
--   * one column per entry and exit field, so that a breakdown reads only its own.
-- Kept by a materialised view on every insert into events, as 0003's table was; that table
-- and its view are dropped at the end. Same rules: any non-empty $session_id of at most
-- 200 characters; entry and exit are the earliest and latest events with a $current_url.
DROP VIEW IF EXISTS {database}.sessions_mv;

CREATE TABLE IF NOT EXISTS {database}.sessions_v2
(
    project_id Int32,
    session_id String,
    distinct_id SimpleAggregateFunction(min, String),
    person AggregateFunction(argMinIf, Nullable(UUID), DateTime64(6, 'UTC'), UInt8),
    start_timestamp SimpleAggregateFunction(min, DateTime64(6, 'UTC')),
    end_timestamp SimpleAggregateFunction(max, DateTime64(6, 'UTC')),
    -- 1970-01-01 for a session without page views or screens.
    last_view_timestamp SimpleAggregateFunction(max, DateTime64(6, 'UTC')),
    pageview_count SimpleAggregateFunction(sum, UInt64),
    screen_count SimpleAggregateFunction(sum, UInt64),
    autocapture_count SimpleAggregateFunction(sum, UInt64),
    entry_url AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    entry_pathname AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    entry_referring_domain AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    entry_utm_source AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    entry_utm_medium AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    entry_utm_campaign AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    entry_utm_term AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    entry_utm_content AggregateFunction(argMin, String, DateTime64(6, 'UTC')),
    exit_url AggregateFunction(argMax, String, DateTime64(6, 'UTC')),
    exit_pathname AggregateFunction(argMax, String, DateTime64(6, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (project_id, session_id);

-- Backfill once, before the view exists (nothing is inserted while migrations run); skipped
-- when the table has rows already, so that a migration re-run after a crash adds nothing.
INSERT INTO {database}.sessions_v2
SELECT project_id, session_id, min(distinct_id), argMinIfState(person_id, timestamp, toUInt8(person_id IS NOT NULL)), min(timestamp), max(timestamp),
       maxIf(timestamp, event IN ('$pageview', '$screen')),
       toUInt64(countIf(event = '$pageview')), toUInt64(countIf(event = '$screen')), toUInt64(countIf(event = '$autocapture')),
       argMinIfState(url, timestamp, url != ''), argMinIfState(pathname, timestamp, url != ''),
       argMinIfState(JSONExtractString(properties, '$referring_domain'), timestamp, url != ''),
       argMinIfState(JSONExtractString(properties, 'utm_source'), timestamp, url != ''), argMinIfState(JSONExtractString(properties, 'utm_medium'), timestamp, url != ''),
       argMinIfState(JSONExtractString(properties, 'utm_campaign'), timestamp, url != ''), argMinIfState(JSONExtractString(properties, 'utm_term'), timestamp, url != ''),
       argMinIfState(JSONExtractString(properties, 'utm_content'), timestamp, url != ''),
       argMaxIfState(url, timestamp, url != ''), argMaxIfState(pathname, timestamp, url != '')
FROM (
    SELECT project_id, JSONExtractString(properties, '$session_id') AS session_id, distinct_id, person_id, timestamp, event, properties,
           JSONExtractString(properties, '$current_url') AS url,
           if(JSONExtractString(properties, '$pathname') != '', JSONExtractString(properties, '$pathname'), path(JSONExtractString(properties, '$current_url'))) AS pathname
    FROM {database}.events
    WHERE JSONExtractString(properties, '$session_id') != '' AND length(JSONExtractString(properties, '$session_id')) <= 200
      AND (SELECT count() FROM {database}.sessions_v2) = 0
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
       argMaxIfState(url, timestamp, url != '') AS exit_url, argMaxIfState(pathname, timestamp, url != '') AS exit_pathname
FROM (
    SELECT project_id, JSONExtractString(properties, '$session_id') AS session_id, distinct_id, person_id, timestamp, event, properties,
           JSONExtractString(properties, '$current_url') AS url,
           if(JSONExtractString(properties, '$pathname') != '', JSONExtractString(properties, '$pathname'), path(JSONExtractString(properties, '$current_url'))) AS pathname
    FROM {database}.events
    WHERE JSONExtractString(properties, '$session_id') != '' AND length(JSONExtractString(properties, '$session_id')) <= 200
)
GROUP BY project_id, session_id;

DROP TABLE IF EXISTS {database}.sessions;

-- Persons merged into others since their sessions were written (a session keeps the person
-- it was written with; lightweight UPDATEs cannot reach an AggregatingMergeTree). One row
-- per merged-away person naming the person it now is; a later merge of that person
-- rewrites the rows pointing at it, so a read follows one step. Read with FINAL.
CREATE TABLE IF NOT EXISTS {database}.person_overrides
(
    project_id Int32,
    old_person_id UUID,
    new_person_id UUID,
    version UInt64
)
ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, old_person_id);

-- More hot properties (0002): the geography and language web analytics breaks down by.
ALTER TABLE {database}.events ADD COLUMN IF NOT EXISTS mat_geoip_country_code String MATERIALIZED multiIf(startsWith(JSONExtractRaw(properties, '$geoip_country_code'), '"'), JSONExtractString(JSONExtractRaw(properties, '$geoip_country_code')), JSONExtractRaw(properties, '$geoip_country_code') = 'null', '', JSONExtractRaw(properties, '$geoip_country_code'));
ALTER TABLE {database}.events ADD COLUMN IF NOT EXISTS mat_geoip_subdivision_1_code String MATERIALIZED multiIf(startsWith(JSONExtractRaw(properties, '$geoip_subdivision_1_code'), '"'), JSONExtractString(JSONExtractRaw(properties, '$geoip_subdivision_1_code')), JSONExtractRaw(properties, '$geoip_subdivision_1_code') = 'null', '', JSONExtractRaw(properties, '$geoip_subdivision_1_code'));
ALTER TABLE {database}.events ADD COLUMN IF NOT EXISTS mat_geoip_city_name String MATERIALIZED multiIf(startsWith(JSONExtractRaw(properties, '$geoip_city_name'), '"'), JSONExtractString(JSONExtractRaw(properties, '$geoip_city_name')), JSONExtractRaw(properties, '$geoip_city_name') = 'null', '', JSONExtractRaw(properties, '$geoip_city_name'));
ALTER TABLE {database}.events ADD COLUMN IF NOT EXISTS mat_browser_language String MATERIALIZED multiIf(startsWith(JSONExtractRaw(properties, '$browser_language'), '"'), JSONExtractString(JSONExtractRaw(properties, '$browser_language')), JSONExtractRaw(properties, '$browser_language') = 'null', '', JSONExtractRaw(properties, '$browser_language'));
