-- CreateTable
CREATE TABLE "session_deltas" (
    "id" BIGSERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "session_id" TEXT NOT NULL,
    "distinct_id" TEXT NOT NULL,
    "person_id" UUID,
    "start_timestamp" TIMESTAMPTZ(3) NOT NULL,
    "end_timestamp" TIMESTAMPTZ(3) NOT NULL,
    "last_view_timestamp" TIMESTAMPTZ(3),
    "pageview_count" INTEGER NOT NULL,
    "screen_count" INTEGER NOT NULL,
    "autocapture_count" INTEGER NOT NULL,
    "entry_timestamp" TIMESTAMPTZ(3),
    "entry" JSONB,
    "exit_timestamp" TIMESTAMPTZ(3),
    "exit" JSONB,

    CONSTRAINT "session_deltas_pkey" PRIMARY KEY ("id")
);

-- AddForeignKey
ALTER TABLE "session_deltas" ADD CONSTRAINT "session_deltas_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

