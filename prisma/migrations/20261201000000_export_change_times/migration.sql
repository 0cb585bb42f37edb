-- When a session row and a distinct id's attachment last changed: batch exports of the
-- sessions and persons models select the rows that changed in their interval.

-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- AlterTable
ALTER TABLE "person_distinct_ids" ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Rows already there: a session last changed with its last event, a distinct id with its person
-- (so that a backfill of past intervals finds them where they happened, not all at this migration).
UPDATE "sessions" SET "updated_at" = LEAST("end_timestamp", "updated_at");
UPDATE "person_distinct_ids" d SET "updated_at" = p."updated_at" FROM "persons" p WHERE p."id" = d."person_id";

-- CreateIndex
CREATE INDEX "sessions_project_id_updated_at_idx" ON "sessions"("project_id", "updated_at");

-- CreateIndex
CREATE INDEX "persons_project_id_updated_at_idx" ON "persons"("project_id", "updated_at");

-- CreateIndex
CREATE INDEX "person_distinct_ids_project_id_updated_at_idx" ON "person_distinct_ids"("project_id", "updated_at");
