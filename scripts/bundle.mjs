// The server's TypeScript entry points bundled into one ESM file each (dependencies stay in
// node_modules): `npm run build` bundles server.ts, `npm run admin` the CLI. Loading one file
// instead of the few hundred modules tsx would transform took the CLI from about 2.2 to 0.85 s
// of CPU a command.
import fs from "node:fs";
import path from "node:path";

/** What a bundle is made from: a change to any of these makes a bundle older than its sources. */
export const BUNDLE_SOURCES = ["src", "server.ts", "package.json", "tsconfig.json"];

/** The newest modification time under `entries` (files or folders), 0 when none exists. */
export function newestMtime(entries) {
  let newest = 0;
  for (const entry of entries) {
    if (!fs.existsSync(entry)) continue;
    const stat = fs.statSync(entry);
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) newest = Math.max(newest, newestMtime(fs.readdirSync(entry).map((child) => path.join(entry, child))));
  }
  return newest;
}

/** Bundles `entry` into `outfile`, written whole or not at all (another process may be reading or writing it). */
export async function bundle(entry, outfile) {
  // Imported here: starting an existing build needs no bundler.
  const { build } = await import("esbuild");
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const partial = `${outfile}.${process.pid}.tmp`;
  await build({
    entryPoints: [entry],
    outfile: partial,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
  });
  fs.renameSync(partial, outfile);
}
