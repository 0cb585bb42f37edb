// `npm run admin -- <command>`: the CLI (src/cli/admin.ts) bundled again when its sources are
// newer than the last bundle, then run in this process.
import fs from "node:fs";
import path from "node:path";
import { BUNDLE_SOURCES, bundle, newestMtime } from "./bundle.mjs";

// Inside node_modules, so that the bundle's imports of packages resolve as the sources' do.
const BUNDLE = path.resolve("node_modules/.cache/burrow/admin.mjs");

const bundledAt = fs.existsSync(BUNDLE) ? fs.statSync(BUNDLE).mtimeMs : 0;
if (bundledAt < newestMtime(BUNDLE_SOURCES)) await bundle("src/cli/admin.ts", BUNDLE);
await import(BUNDLE);
