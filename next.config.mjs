/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its wasm and data files from beside its JS, chdb and resvg their native libraries: keep them out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "@node-rs/argon2", "pg", "@clickhouse/client", "chdb", "@resvg/resvg-js"],
  poweredByHeader: false,
  reactStrictMode: true,
  // Management paths answer with and without the trailing slash, with no redirect.
  skipTrailingSlashRedirect: true,
  // Type-checking is a test step, not a build step: `npm test` starts with tsc over every
  // file (app, tests, e2e, benchmarks). Builds stay fast for `npm start`, and work in
  // progress elsewhere in the tree cannot block a build.
  typescript: { ignoreBuildErrors: true, tsconfigPath: "tsconfig.next.json" },
};

export default nextConfig;
