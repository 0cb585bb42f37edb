/**
 * The server as an operator runs it: `npm start`'s build (dist/server.mjs) on its own
 * DATA_DIR, the admin CLI beside it, restarts, and start-up refusals.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { waitFor } from "./support/burrow";
import { admin, freePort, runServerToExit, startServer, tempDataDir } from "./support/server";

test.describe.configure({ mode: "serial" });

test.describe("the server on the embedded database", () => {
  const dataDir = tempDataDir();
  let bootstrapped: {
    user: { id: number; uuid: string; email: string };
    organization_id: string;
    project_id: number;
    project_api_key: string;
    personal_api_key: string;
  };

  test("admin bootstrap --json prints the documented object", () => {
    const result = admin(["bootstrap", "--email", "a@example.com", "--password", "pw12345678", "--json"], { DATA_DIR: dataDir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    bootstrapped = JSON.parse(result.stdout);
    expect(Object.keys(bootstrapped).sort()).toEqual(
      ["organization_id", "personal_api_key", "project_api_key", "project_id", "user"].sort(),
    );
    expect(bootstrapped.user).toEqual({ id: expect.any(Number), uuid: expect.any(String), email: "a@example.com" });
    expect(bootstrapped.project_api_key).toMatch(/^phc_[0-9A-Za-z]{40,}$/);
    expect(bootstrapped.personal_api_key).toMatch(/^phx_[0-9A-Za-z]{40,}$/);
  });

  test("serves /, /_health and /_ready, accepts the bootstrap key and survives a restart", async () => {
    const first = await startServer({ DATA_DIR: dataDir });
    try {
      expect(first.output()).toContain(`embedded PostgreSQL in ${dataDir}`);
      const home = await fetch(`${first.url}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain("Burrow");
      for (const path of ["/_health", "/_health/"]) {
        const health = await fetch(`${first.url}${path}`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: "ok" });
      }
      const ready = await fetch(`${first.url}/_ready`);
      expect(ready.status).toBe(200);

      for (const path of ["/api/users/@me/", "/api/users/@me"]) {
        const me = await fetch(`${first.url}${path}`, { headers: { authorization: `Bearer ${bootstrapped.personal_api_key}` }, redirect: "manual" });
        expect(me.status, path).toBe(200);
        expect(await me.json()).toMatchObject({ email: "a@example.com", uuid: bootstrapped.user.uuid, current_project_id: bootstrapped.project_id });
      }
      const wrongKey = await fetch(`${first.url}/api/users/@me/`, { headers: { authorization: "Bearer phx_wrong" } });
      expect(wrongKey.status).toBe(401);
      expect(await wrongKey.json()).toEqual({
        type: "authentication_error",
        code: "authentication_failed",
        detail: expect.any(String),
        attr: null,
      });
      const noKey = await fetch(`${first.url}/api/users/@me/`);
      expect(noKey.status).toBe(401);
      expect(await noKey.json()).toMatchObject({ type: "authentication_error", code: "not_authenticated" });

      // While the server holds DATA_DIR, neither a second server nor the CLI may open it.
      const second = await runServerToExit({ DATA_DIR: dataDir });
      expect(second.code).not.toBe(0);
      expect(second.stderr.trim().split("\n")).toHaveLength(1);
      expect(second.stderr).toMatch(/^burrow: DATA_DIR .* is in use by another Burrow process \(pid \d+\)/);
      const cli = admin(["migrate", "--json"], { DATA_DIR: dataDir });
      expect(cli.code).not.toBe(0);
      expect(cli.stdout).toBe("");
      expect(cli.stderr).toMatch(/^admin: DATA_DIR .* is in use/);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(first.output()).toContain("burrow: stopped");
    expect(fs.existsSync(path.join(dataDir, "burrow.lock"))).toBe(false);

    const again = await startServer({ DATA_DIR: dataDir });
    try {
      const me = await fetch(`${again.url}/api/users/@me/`, { headers: { authorization: `Bearer ${bootstrapped.personal_api_key}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ email: "a@example.com" });
      expect((await fetch(`${again.url}/_ready`)).status).toBe(200);
    } finally {
      expect(await again.stop()).toBe(0);
    }
  });

  test("answers while its database opens: /_health at once, /_ready 503 until warm, and a capture sent meanwhile is stored", async () => {
    // The server listens first and opens the database while Next prepares: requests that come
    // meanwhile wait for the one database (a second PGlite on DATA_DIR would corrupt it).
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const starting = startServer({ DATA_DIR: dataDir, PORT: String(port) });
    const health = await waitFor("the server to listen", () => fetch(`${base}/_health`).catch(() => undefined), 60_000);
    const ready = await fetch(`${base}/_ready`);
    const capture = fetch(`${base}/capture/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ api_key: bootstrapped.project_api_key, event: "sent while starting", distinct_id: "early-visitor" }),
    });
    expect(health.status).toBe(200);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "starting", database: "warming up" });
    const server = await starting;
    try {
      expect((await capture).status).toBe(200);
      expect((await fetch(`${server.url}/_ready`)).status).toBe(200);
      const listed = await fetch(`${server.url}/api/projects/${bootstrapped.project_id}/events/?event=sent%20while%20starting`, {
        headers: { authorization: `Bearer ${bootstrapped.personal_api_key}` },
      });
      expect(listed.status).toBe(200);
      const { results } = (await listed.json()) as { results: { distinct_id: string }[] };
      expect(results.map((event) => event.distinct_id)).toEqual(["early-visitor"]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("stops on SIGTERM after the reader of its output went away", async () => {
    const server = await startServer({ DATA_DIR: dataDir });
    // Both pipes closed at this end: the server's next line (the SIGTERM notice) meets EPIPE.
    server.process.stdout!.destroy();
    server.process.stderr!.destroy();
    const health = await fetch(`${server.url}/_health`);
    expect(health.status).toBe(200);
    expect(await server.stop()).toBe(0);
  });

  test("takes over the lock of a server that was killed", async () => {
    const killed = await startServer({ DATA_DIR: dataDir });
    killed.process.kill("SIGKILL");
    await new Promise((resolve) => killed.process.once("exit", resolve));
    expect(fs.existsSync(path.join(dataDir, "burrow.lock"))).toBe(true);
    const next = await startServer({ DATA_DIR: dataDir });
    try {
      const me = await fetch(`${next.url}/api/users/@me/`, { headers: { authorization: `Bearer ${bootstrapped.personal_api_key}` } });
      expect(me.status).toBe(200);
    } finally {
      expect(await next.stop()).toBe(0);
    }
  });
});

test.describe("start-up refuses bad configuration with one clear line", () => {
  const notADirectory = path.join(tempDataDir(), "a-file");
  fs.writeFileSync(notADirectory, "");
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ["a malformed DATABASE_URL", { DATABASE_URL: "mysql://root@localhost/x" }, /^burrow: DATABASE_URL is not a PostgreSQL URL/],
    ["an unreachable PostgreSQL server", { DATABASE_URL: "postgresql://root@127.0.0.1:1/burrow" }, /^burrow: Cannot reach PostgreSQL at 127\.0\.0\.1:1/],
    ["a database that does not exist", { DATABASE_URL: "postgresql://root@127.0.0.1:5432/burrow_missing_db" }, /^burrow: DATABASE_URL names database burrow_missing_db, which does not exist/],
    // A path under a regular file: even root cannot create it.
    ["an unwritable DATA_DIR", { DATA_DIR: `${notADirectory}/data` }, /^burrow: DATA_DIR .*\/data cannot be written/],
    ["an invalid PORT", { PORT: "http" }, /^burrow: PORT is invalid/],
  ];
  for (const [what, env, message] of cases) {
    test(`refuses ${what}`, async () => {
      const result = await runServerToExit({ DATA_DIR: tempDataDir(), ...env });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    });
  }
});

test.describe("the server on PostgreSQL", () => {
  test("migrates a fresh database, serves /_ready and keeps data across a restart", async () => {
    const { createEmptyPostgresDatabase } = await import("./support/postgres");
    const database = await createEmptyPostgresDatabase();
    try {
      const boot = admin(["bootstrap", "--email", "pg@example.com", "--password", "pw12345678", "--json"], { DATABASE_URL: database.url });
      expect(boot.code, boot.stderr).toBe(0);
      const { personal_api_key: key } = JSON.parse(boot.stdout);
      for (let run = 0; run < 2; run++) {
        const server = await startServer({ DATABASE_URL: database.url, DATA_DIR: tempDataDir() });
        try {
          expect(server.output()).toContain("PostgreSQL at 127.0.0.1:5432");
          expect((await fetch(`${server.url}/_ready`)).status).toBe(200);
          const me = await fetch(`${server.url}/api/users/@me/`, { headers: { authorization: `Bearer ${key}` } });
          expect(me.status).toBe(200);
          expect(await me.json()).toMatchObject({ email: "pg@example.com" });
        } finally {
          expect(await server.stop()).toBe(0);
        }
      }
    } finally {
      await database.drop();
    }
  });
});

test.describe("sign-in lockout over HTTP", () => {
  test("five wrong passwords in a row answer 429 with Retry-After; the right password works after the window", async () => {
    // The admin CLI and a server start inside the test: more than the default 60 s under load.
    test.setTimeout(120_000);
    const dataDir = tempDataDir();
    const boot = admin(["bootstrap", "--email", "lock@example.com", "--password", "right-password-1", "--json"], { DATA_DIR: dataDir });
    expect(boot.code, boot.stderr).toBe(0);
    const server = await startServer({ DATA_DIR: dataDir, BURROW_SIGNIN_LOCKOUT_SECONDS: "3" });
    try {
      const csrf = await fetch(`${server.url}/api/auth/csrf`);
      const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const signIn = (password: string) =>
        fetch(`${server.url}/api/auth/callback/credentials`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: server.url },
          body: new URLSearchParams({ csrfToken, email: "lock@example.com", password, json: "true" }),
        });
      for (let i = 0; i < 5; i++) {
        const wrong = await signIn("wrong-password");
        expect(wrong.status, `attempt ${i + 1}`).toBe(401);
      }
      const locked = await signIn("right-password-1");
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await locked.json()).toMatchObject({ type: "throttled_error", code: "throttled", url: expect.stringContaining("error=throttled") });
      await new Promise((resolve) => setTimeout(resolve, 3_200));
      const ok = await signIn("right-password-1");
      expect(ok.status).toBe(200);
      expect(ok.headers.getSetCookie().some((c) => c.startsWith("next-auth.session-token="))).toBe(true);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
