-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "test_account_filters" JSONB NOT NULL DEFAULT '[]';

