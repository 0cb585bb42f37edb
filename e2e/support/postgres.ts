// The same throwaway databases the integration tests use.
export { createEmptyPostgresDatabase } from "@/test-support/db";
