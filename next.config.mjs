/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its wasm and data files from beside its JS: keep it out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@node-rs/argon2", "pg"],
  poweredByHeader: false,
  reactStrictMode: true,
  // Management paths answer with and without the trailing slash, with no redirect.
  skipTrailingSlashRedirect: true,
  // The app's own files only: tests, e2e and benchmarks are type-checked by `npm test`
  // (tsc on tsconfig.json), so a test in progress cannot break a build.
  typescript: { ignoreBuildErrors: false, tsconfigPath: "tsconfig.next.json" },
};

export default nextConfig;
