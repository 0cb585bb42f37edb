-- CreateTable
CREATE TABLE "hog_function_outbox_batches" (
    "id" BIGSERIAL NOT NULL,
    "routes" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hog_function_outbox_batches_pkey" PRIMARY KEY ("id")
);

-- AlterTable
ALTER TABLE "hog_function_outbox" ALTER COLUMN "payload" DROP NOT NULL;
