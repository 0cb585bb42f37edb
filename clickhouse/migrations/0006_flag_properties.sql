-- More hot properties (0002): the flag and the variant of `$feature_flag_called`, which every
-- experiment's results read from each exposure (db/events/experiment-tally/clickhouse.ts);
-- parsing them from the JSON of a million exposures was most of the results' time.
ALTER TABLE {database}.events ADD COLUMN IF NOT EXISTS mat_feature_flag String MATERIALIZED multiIf(startsWith(JSONExtractRaw(properties, '$feature_flag'), '"'), JSONExtractString(JSONExtractRaw(properties, '$feature_flag')), JSONExtractRaw(properties, '$feature_flag') = 'null', '', JSONExtractRaw(properties, '$feature_flag'));
ALTER TABLE {database}.events ADD COLUMN IF NOT EXISTS mat_feature_flag_response String MATERIALIZED multiIf(startsWith(JSONExtractRaw(properties, '$feature_flag_response'), '"'), JSONExtractString(JSONExtractRaw(properties, '$feature_flag_response')), JSONExtractRaw(properties, '$feature_flag_response') = 'null', '', JSONExtractRaw(properties, '$feature_flag_response'));
