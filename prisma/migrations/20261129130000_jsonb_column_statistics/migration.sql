-- ANALYZE skips these columns. Their statistics serve no plan (filters read keys inside them,
-- which column statistics do not describe), yet sampling and detoasting them was most of an
-- ANALYZE's time: on the embedded database, whose one connection every request waits for,
-- ANALYZE of 100,000 persons took 750 ms with them and 300 ms without (bench:hot's seed).
ALTER TABLE "events" ALTER COLUMN "properties" SET STATISTICS 0;
ALTER TABLE "events" ALTER COLUMN "elements_chain" SET STATISTICS 0;
ALTER TABLE "persons" ALTER COLUMN "properties" SET STATISTICS 0;
ALTER TABLE "groups" ALTER COLUMN "group_properties" SET STATISTICS 0;
ALTER TABLE "recording_chunks" ALTER COLUMN "data" SET STATISTICS 0;
