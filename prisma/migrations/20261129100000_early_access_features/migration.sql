-- CreateTable
CREATE TABLE "early_access_features" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "feature_flag_id" INTEGER NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "stage" TEXT NOT NULL,
    "documentation_url" TEXT NOT NULL DEFAULT '',
    "payload" JSONB NOT NULL DEFAULT '{}',
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "early_access_features_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "early_access_features_feature_flag_id_key" ON "early_access_features"("feature_flag_id");

-- CreateIndex
CREATE INDEX "early_access_features_project_id_stage_idx" ON "early_access_features"("project_id", "stage");

-- AddForeignKey
ALTER TABLE "early_access_features" ADD CONSTRAINT "early_access_features_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "early_access_features" ADD CONSTRAINT "early_access_features_feature_flag_id_fkey" FOREIGN KEY ("feature_flag_id") REFERENCES "feature_flags"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "early_access_features" ADD CONSTRAINT "early_access_features_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
