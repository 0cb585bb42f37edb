// `npm start`: build if there is no build (or the sources are newer than it), then run the
// server in this process so signals reach it directly.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const BUILD_MARKERS = [".next/BUILD_ID", "dist/server.mjs"];
const SOURCES = ["src", "server.ts", "next.config.mjs", "tailwind.config.ts", "postcss.config.mjs", "public", "package.json"];

function newestMtime(entry) {
  if (!fs.existsSync(entry)) return 0;
  const stat = fs.statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

const builtAt = Math.min(...BUILD_MARKERS.map((marker) => (fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0)));
const changedAt = Math.max(...SOURCES.map(newestMtime));
if (builtAt === 0 || changedAt > builtAt) {
  console.log(builtAt === 0 ? "burrow: no build found, building first" : "burrow: sources changed since the last build, rebuilding");
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
process.env.NODE_ENV = "production";
await import(path.resolve("dist/server.mjs"));
