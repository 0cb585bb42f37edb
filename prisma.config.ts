// For the Prisma CLI only (generate). The app hands its own driver adapter to the client at
// run time (src/server/db/client.ts); migrations are applied by src/server/db/migrate.ts.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
