-- Destinations (PostHog's hog functions of type `destination`), their outbox and their delivery log.

-- CreateTable
CREATE TABLE "hog_functions" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'destination',
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "template_id" TEXT,
    "hog" TEXT NOT NULL DEFAULT '',
    "icon_url" TEXT,
    "inputs_schema" JSONB NOT NULL DEFAULT '[]',
    "inputs" JSONB NOT NULL DEFAULT '{}',
    "filters" JSONB NOT NULL DEFAULT '{}',
    "masking" JSONB,
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "circuit_open_until" TIMESTAMPTZ(3),
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "hog_functions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "hog_functions_project_id_deleted_idx" ON "hog_functions"("project_id", "deleted");

-- AddForeignKey
ALTER TABLE "hog_functions" ADD CONSTRAINT "hog_functions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "hog_functions" ADD CONSTRAINT "hog_functions_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable: written in the events' own statement (no foreign key, so that a destination
-- deleted meanwhile can never fail an event insert; the worker drops its rows).
CREATE TABLE "hog_function_outbox" (
    "id" BIGSERIAL NOT NULL,
    "hog_function_id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "event_uuid" UUID NOT NULL,
    "payload" JSONB NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hog_function_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "hog_function_outbox_next_attempt_at_idx" ON "hog_function_outbox"("next_attempt_at");

-- CreateTable
CREATE TABLE "hog_function_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "hog_function_id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "event_uuid" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "response_code" INTEGER,
    "duration_ms" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hog_function_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "hog_function_deliveries_hog_function_id_created_at_idx" ON "hog_function_deliveries"("hog_function_id", "created_at");

-- AddForeignKey
ALTER TABLE "hog_function_deliveries" ADD CONSTRAINT "hog_function_deliveries_hog_function_id_fkey" FOREIGN KEY ("hog_function_id") REFERENCES "hog_functions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
