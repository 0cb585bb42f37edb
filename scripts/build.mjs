// `npm run build`: the Next app, then the custom server as one small ESM file (dist/server.mjs).
import { execFileSync } from "node:child_process";
import { build } from "esbuild";

// Burrow is a privacy tool: Next's anonymous telemetry stays off, and its notice never prints.
process.env.NEXT_TELEMETRY_DISABLED = "1";
execFileSync("npx", ["--no-install", "next", "build"], { stdio: "inherit" });
await build({
  entryPoints: ["server.ts"],
  outfile: "dist/server.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  tsconfig: "tsconfig.json",
  logLevel: "warning",
});
console.log("burrow: built dist/server.mjs");
