-- CreateTable
CREATE TABLE "alerts" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "insight_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "threshold" JSONB NOT NULL,
    "condition" JSONB NOT NULL,
    "config" JSONB NOT NULL,
    "calculation_interval" TEXT NOT NULL DEFAULT 'daily',
    "state" TEXT NOT NULL DEFAULT 'Not firing',
    "subscribed_user_ids" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "webhook_url" TEXT,
    "skip_weekend" BOOLEAN NOT NULL DEFAULT false,
    "snoozed_until" TIMESTAMPTZ(3),
    "last_notified_at" TIMESTAMPTZ(3),
    "last_checked_at" TIMESTAMPTZ(3),
    "next_check_at" TIMESTAMPTZ(3),
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_checks" (
    "id" UUID NOT NULL,
    "alert_id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "calculated_value" DOUBLE PRECISION,
    "state" TEXT NOT NULL,
    "error" JSONB,
    "targets_notified" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "alert_checks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alerts_project_id_insight_id_idx" ON "alerts"("project_id", "insight_id");

-- CreateIndex
CREATE INDEX "alerts_next_check_at_idx" ON "alerts"("next_check_at");

-- CreateIndex
CREATE INDEX "alert_checks_alert_id_created_at_idx" ON "alert_checks"("alert_id", "created_at");

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_insight_id_fkey" FOREIGN KEY ("insight_id") REFERENCES "insights"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_checks" ADD CONSTRAINT "alert_checks_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

