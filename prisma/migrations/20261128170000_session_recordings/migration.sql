-- Session replay: per-project recording settings, one row of metadata per recording, and
-- its snapshots as gzip-compressed JSONL chunks (one per (session, window) and request).

-- CreateTable
CREATE TABLE "recording_settings" (
    "project_id" INTEGER NOT NULL,
    "settings" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recording_settings_pkey" PRIMARY KEY ("project_id")
);

-- CreateTable
CREATE TABLE "recordings" (
    "project_id" INTEGER NOT NULL,
    "session_id" TEXT NOT NULL,
    "distinct_id" TEXT NOT NULL,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "end_time" TIMESTAMPTZ(3) NOT NULL,
    "active_ms" BIGINT NOT NULL DEFAULT 0,
    "last_active_ms" BIGINT,
    "click_count" INTEGER NOT NULL DEFAULT 0,
    "keypress_count" INTEGER NOT NULL DEFAULT 0,
    "mouse_activity_count" INTEGER NOT NULL DEFAULT 0,
    "console_log_count" INTEGER NOT NULL DEFAULT 0,
    "console_warn_count" INTEGER NOT NULL DEFAULT 0,
    "console_error_count" INTEGER NOT NULL DEFAULT 0,
    "start_url" TEXT,
    "snapshot_source" TEXT NOT NULL DEFAULT 'web',
    "snapshot_library" TEXT,
    "size_bytes" BIGINT NOT NULL DEFAULT 0,
    "chunk_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recordings_pkey" PRIMARY KEY ("project_id","session_id")
);

-- CreateTable
CREATE TABLE "recording_chunks" (
    "id" BIGSERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "session_id" TEXT NOT NULL,
    "window_id" TEXT NOT NULL,
    "first_timestamp" TIMESTAMPTZ(3) NOT NULL,
    "last_timestamp" TIMESTAMPTZ(3) NOT NULL,
    "event_count" INTEGER NOT NULL,
    "raw_bytes" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recording_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "recordings_project_id_start_time_idx" ON "recordings"("project_id", "start_time");

-- CreateIndex
CREATE INDEX "recordings_project_id_distinct_id_idx" ON "recordings"("project_id", "distinct_id");

-- CreateIndex
CREATE INDEX "recording_chunks_project_id_session_id_first_timestamp_idx" ON "recording_chunks"("project_id", "session_id", "first_timestamp");

-- AddForeignKey
ALTER TABLE "recording_settings" ADD CONSTRAINT "recording_settings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recordings" ADD CONSTRAINT "recordings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "recording_chunks" ADD CONSTRAINT "recording_chunks_project_id_session_id_fkey" FOREIGN KEY ("project_id", "session_id") REFERENCES "recordings"("project_id", "session_id") ON DELETE CASCADE ON UPDATE CASCADE;
