-- Events, one row each; `{database}` is replaced by the database CLICKHOUSE_URL names.
-- Partitioned by month; ordered for the hot queries (a project's events over a time range,
-- often of one event name). Properties are the event's JSON as text, read with JSONExtract*.
-- A client uuid is stored once per project: the store skips uuids a project already has
-- before inserting, and ReplacingMergeTree folds duplicates of a concurrent retry on two
-- nodes at merge time. The block columns allow lightweight UPDATE (person merges).
CREATE TABLE IF NOT EXISTS {database}.events
(
    project_id Int32,
    uuid UUID,
    event String,
    distinct_id String,
    properties String CODEC(ZSTD(1)),
    timestamp DateTime64(6, 'UTC'),
    person_id Nullable(UUID),
    elements_chain String,
    historical_migration Bool,
    inserted_at DateTime64(6, 'UTC') DEFAULT now64(6),
    INDEX uuid_bloom uuid TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX person_bloom person_id TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX distinct_id_bloom distinct_id TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(timestamp)
ORDER BY (project_id, toDate(timestamp), event, uuid)
SETTINGS enable_block_number_column = 1, enable_block_offset_column = 1;
