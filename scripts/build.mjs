// `npm run build`: the Next app, then the custom server as one small ESM file (dist/server.mjs).
import { execFileSync } from "node:child_process";
import { bundle } from "./bundle.mjs";

// Burrow is a privacy tool: Next's anonymous telemetry stays off, and its notice never prints.
process.env.NEXT_TELEMETRY_DISABLED = "1";
execFileSync("npx", ["--no-install", "next", "build"], { stdio: "inherit" });
await bundle("server.ts", "dist/server.mjs");
console.log("burrow: built dist/server.mjs");
