-- CreateTable
CREATE TABLE "person_deletions" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "person_uuid" UUID NOT NULL,
    "distinct_ids" TEXT[],
    "deleted_events" INTEGER NOT NULL DEFAULT 0,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "person_deletions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cohorts" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "filters" JSONB NOT NULL DEFAULT '{}',
    "is_static" BOOLEAN NOT NULL DEFAULT false,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,
    "computed_version" INTEGER,
    "is_calculating" BOOLEAN NOT NULL DEFAULT false,
    "last_calculation" TIMESTAMPTZ(3),
    "errors_calculating" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,
    "count" INTEGER,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "cohorts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "cohort_people" (
    "cohort_id" INTEGER NOT NULL,
    "person_id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "cohort_people_pkey" PRIMARY KEY ("cohort_id","person_id")
);

-- CreateIndex
CREATE INDEX "person_deletions_finished_at_id_idx" ON "person_deletions"("finished_at", "id");

-- CreateIndex
CREATE INDEX "cohorts_project_id_deleted_idx" ON "cohorts"("project_id", "deleted");

-- CreateIndex
CREATE INDEX "cohort_people_person_id_idx" ON "cohort_people"("person_id");

-- AddForeignKey
ALTER TABLE "person_deletions" ADD CONSTRAINT "person_deletions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohorts" ADD CONSTRAINT "cohorts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohorts" ADD CONSTRAINT "cohorts_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohort_people" ADD CONSTRAINT "cohort_people_cohort_id_fkey" FOREIGN KEY ("cohort_id") REFERENCES "cohorts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "cohort_people" ADD CONSTRAINT "cohort_people_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "persons"("id") ON DELETE CASCADE ON UPDATE CASCADE;

