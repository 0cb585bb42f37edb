/**
 * Test files share their worker's process (vitest.config.ts: `isolate: false`): each file
 * leaves `process.env` as it found it, so a limit lifted or lowered by one file (a rate
 * limit, a query budget, an outbound allowlist) never reaches the next. The sign-in throttle
 * (one per process, by e-mail address, src/server/auth/throttle.ts) starts afresh too: worlds
 * of different files share addresses such as owner@example.com.
 */
import { afterAll } from "vitest";

const found = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in found)) delete process.env[name];
  Object.assign(process.env, found);
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("burrow.signInThrottle")];
});
