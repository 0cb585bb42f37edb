-- CreateTable
CREATE TABLE "experiment_saved_metrics" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "query" JSONB NOT NULL,
    "tags" JSONB NOT NULL DEFAULT '[]',
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "experiment_saved_metrics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiment_to_saved_metrics" (
    "id" SERIAL NOT NULL,
    "experiment_id" INTEGER NOT NULL,
    "saved_metric_id" INTEGER NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "experiment_to_saved_metrics_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "experiment_saved_metrics_project_id_idx" ON "experiment_saved_metrics"("project_id");

-- CreateIndex
CREATE INDEX "experiment_to_saved_metrics_saved_metric_id_idx" ON "experiment_to_saved_metrics"("saved_metric_id");

-- CreateIndex
CREATE UNIQUE INDEX "experiment_to_saved_metrics_experiment_id_saved_metric_id_key" ON "experiment_to_saved_metrics"("experiment_id", "saved_metric_id");

-- AddForeignKey
ALTER TABLE "experiment_saved_metrics" ADD CONSTRAINT "experiment_saved_metrics_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_saved_metrics" ADD CONSTRAINT "experiment_saved_metrics_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_to_saved_metrics" ADD CONSTRAINT "experiment_to_saved_metrics_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_to_saved_metrics" ADD CONSTRAINT "experiment_to_saved_metrics_saved_metric_id_fkey" FOREIGN KEY ("saved_metric_id") REFERENCES "experiment_saved_metrics"("id") ON DELETE CASCADE ON UPDATE CASCADE;

