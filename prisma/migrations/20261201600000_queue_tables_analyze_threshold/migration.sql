-- Queues: rows come and go within seconds and every read goes by its index in order, so
-- statistics would be stale at once and no plan depends on them. Out of reach of autovacuum's
-- ANALYZE (vacuuming, which queues need, is unchanged) and of Burrow's own schedule
-- (src/server/db/statistics.ts honours the same setting), which had ANALYZEd the outbox
-- batches every few seconds while /capture/ was busy.
ALTER TABLE "hog_function_outbox_batches" SET (autovacuum_analyze_threshold = 2147483647);
ALTER TABLE "hog_function_outbox" SET (autovacuum_analyze_threshold = 2147483647);
ALTER TABLE "session_deltas" SET (autovacuum_analyze_threshold = 2147483647);
