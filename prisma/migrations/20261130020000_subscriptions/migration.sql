-- Subscriptions: an insight or a dashboard sent on a schedule by e-mail or webhook.

-- CreateTable
CREATE TABLE "subscriptions" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "content_type" TEXT NOT NULL,
    "insight_id" INTEGER,
    "dashboard_id" INTEGER,
    "dashboard_export_insights" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "title" VARCHAR(100),
    "target_type" TEXT NOT NULL,
    "target_value" TEXT NOT NULL,
    "frequency" TEXT NOT NULL,
    "interval" INTEGER NOT NULL DEFAULT 1,
    "count" INTEGER,
    "byweekday" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "bysetpos" INTEGER,
    "start_date" TIMESTAMPTZ(3) NOT NULL,
    "until_date" TIMESTAMPTZ(3),
    "next_delivery_date" TIMESTAMPTZ(3),
    "invite_message" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "last_delivered_at" TIMESTAMPTZ(3),
    "last_delivery_error" TEXT,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "subscriptions_project_id_deleted_idx" ON "subscriptions"("project_id", "deleted");

-- CreateIndex
CREATE INDEX "subscriptions_next_delivery_date_idx" ON "subscriptions"("next_delivery_date");

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_insight_id_fkey" FOREIGN KEY ("insight_id") REFERENCES "insights"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_dashboard_id_fkey" FOREIGN KEY ("dashboard_id") REFERENCES "dashboards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

