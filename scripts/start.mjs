// `npm start`: build if there is no build (or the sources are newer than it), then run the
// server in this process so signals reach it directly.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BUNDLE_SOURCES, newestMtime } from "./bundle.mjs";

const BUILD_MARKERS = [".next/BUILD_ID", "dist/server.mjs"];
const SOURCES = [...BUNDLE_SOURCES, "next.config.mjs", "tailwind.config.ts", "postcss.config.mjs", "public"];

const builtAt = Math.min(...BUILD_MARKERS.map((marker) => (fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0)));
const changedAt = newestMtime(SOURCES);
if (builtAt === 0 || changedAt > builtAt) {
  console.log(builtAt === 0 ? "burrow: no build found, building first" : "burrow: sources changed since the last build, rebuilding");
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
process.env.NODE_ENV = "production";
await import(path.resolve("dist/server.mjs"));
