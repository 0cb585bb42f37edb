-- CreateTable
CREATE TABLE "batch_exports" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "model" TEXT NOT NULL DEFAULT 'events',
    "destination_type" TEXT NOT NULL,
    "destination_config" JSONB NOT NULL DEFAULT '{}',
    "interval" TEXT NOT NULL DEFAULT 'hour',
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "start_at" TIMESTAMPTZ(3),
    "end_at" TIMESTAMPTZ(3),
    "scheduled_until" TIMESTAMPTZ(3),
    "last_paused_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "batch_exports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_export_backfills" (
    "id" UUID NOT NULL,
    "batch_export_id" UUID NOT NULL,
    "start_at" TIMESTAMPTZ(3),
    "end_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL DEFAULT 'Running',
    "total_expected_runs" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "last_updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "batch_export_backfills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_export_runs" (
    "id" UUID NOT NULL,
    "batch_export_id" UUID NOT NULL,
    "backfill_id" UUID,
    "status" TEXT NOT NULL DEFAULT 'Starting',
    "data_interval_start" TIMESTAMPTZ(3) NOT NULL,
    "data_interval_end" TIMESTAMPTZ(3) NOT NULL,
    "records_completed" INTEGER NOT NULL DEFAULT 0,
    "records_total_count" INTEGER,
    "bytes_exported" BIGINT NOT NULL DEFAULT 0,
    "latest_error" TEXT,
    "cursor" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),
    "last_updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "batch_export_runs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "batch_exports_project_id_deleted_idx" ON "batch_exports"("project_id", "deleted");

-- CreateIndex
CREATE INDEX "batch_export_backfills_batch_export_id_created_at_idx" ON "batch_export_backfills"("batch_export_id", "created_at");

-- CreateIndex
CREATE INDEX "batch_export_runs_batch_export_id_data_interval_start_idx" ON "batch_export_runs"("batch_export_id", "data_interval_start");

-- CreateIndex
CREATE INDEX "batch_export_runs_status_next_attempt_at_idx" ON "batch_export_runs"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "events_created_at_brin" ON "events" USING BRIN ("created_at");

-- AddForeignKey
ALTER TABLE "batch_exports" ADD CONSTRAINT "batch_exports_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_export_backfills" ADD CONSTRAINT "batch_export_backfills_batch_export_id_fkey" FOREIGN KEY ("batch_export_id") REFERENCES "batch_exports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_export_runs" ADD CONSTRAINT "batch_export_runs_batch_export_id_fkey" FOREIGN KEY ("batch_export_id") REFERENCES "batch_exports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_export_runs" ADD CONSTRAINT "batch_export_runs_backfill_id_fkey" FOREIGN KEY ("backfill_id") REFERENCES "batch_export_backfills"("id") ON DELETE SET NULL ON UPDATE CASCADE;

