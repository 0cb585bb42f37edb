-- CreateTable
CREATE TABLE "surveys" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400) NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL,
    "schedule" TEXT NOT NULL DEFAULT 'once',
    "linked_flag_id" INTEGER,
    "linked_insight_id" INTEGER,
    "targeting_flag_id" INTEGER,
    "internal_targeting_flag_id" INTEGER,
    "questions" JSONB NOT NULL DEFAULT '[]',
    "conditions" JSONB,
    "appearance" JSONB,
    "start_date" TIMESTAMPTZ(3),
    "end_date" TIMESTAMPTZ(3),
    "archived" BOOLEAN NOT NULL DEFAULT false,
    "responses_limit" INTEGER,
    "iteration_count" INTEGER,
    "iteration_frequency_days" INTEGER,
    "iteration_start_dates" JSONB NOT NULL DEFAULT '[]',
    "current_iteration" INTEGER,
    "current_iteration_start_date" TIMESTAMPTZ(3),
    "sampling" JSONB NOT NULL DEFAULT '{}',
    "enable_partial_responses" BOOLEAN NOT NULL DEFAULT false,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "surveys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "surveys_project_id_name_key" ON "surveys"("project_id", "name");

-- CreateIndex
CREATE INDEX "surveys_project_id_archived_idx" ON "surveys"("project_id", "archived");

-- AddForeignKey
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_linked_flag_id_fkey" FOREIGN KEY ("linked_flag_id") REFERENCES "feature_flags"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_targeting_flag_id_fkey" FOREIGN KEY ("targeting_flag_id") REFERENCES "feature_flags"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_internal_targeting_flag_id_fkey" FOREIGN KEY ("internal_targeting_flag_id") REFERENCES "feature_flags"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "surveys" ADD CONSTRAINT "surveys_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
