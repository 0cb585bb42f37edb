-- AlterTable
ALTER TABLE "persons" ALTER COLUMN "uuid" SET DEFAULT gen_random_uuid();

-- CreateIndex
CREATE INDEX "events_project_id_person_id_idx" ON "events"("project_id", "person_id");

