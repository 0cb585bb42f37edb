/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its wasm and data files from beside its JS: keep it out of the bundle.
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@node-rs/argon2", "pg"],
  poweredByHeader: false,
  reactStrictMode: true,
  // Management paths answer with and without the trailing slash, with no redirect.
  skipTrailingSlashRedirect: true,
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
