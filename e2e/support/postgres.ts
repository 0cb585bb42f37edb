// The same throwaway databases the integration tests use.
export { createEmptyPostgresDatabase } from "../../src/server/db/testing";
