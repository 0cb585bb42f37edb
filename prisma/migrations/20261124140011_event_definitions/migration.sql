-- CreateTable
CREATE TABLE "event_definitions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "property_definitions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "type" INTEGER NOT NULL,
    "property_type" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "property_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_properties" (
    "project_id" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "property" TEXT NOT NULL,

    CONSTRAINT "event_properties_pkey" PRIMARY KEY ("project_id","event","property")
);

-- CreateTable
CREATE TABLE "definition_volumes" (
    "project_id" INTEGER NOT NULL,
    "kind" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "definition_volumes_pkey" PRIMARY KEY ("project_id","kind","name","day")
);

-- CreateTable
CREATE TABLE "definition_backfills" (
    "project_id" INTEGER NOT NULL,
    "done_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "definition_backfills_pkey" PRIMARY KEY ("project_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "event_definitions_project_id_name_key" ON "event_definitions"("project_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "property_definitions_project_id_type_name_key" ON "property_definitions"("project_id", "type", "name");

-- CreateIndex
CREATE INDEX "event_properties_project_id_property_idx" ON "event_properties"("project_id", "property");

-- AddForeignKey
ALTER TABLE "event_definitions" ADD CONSTRAINT "event_definitions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "property_definitions" ADD CONSTRAINT "property_definitions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_properties" ADD CONSTRAINT "event_properties_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "definition_volumes" ADD CONSTRAINT "definition_volumes_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "definition_backfills" ADD CONSTRAINT "definition_backfills_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

