/**
 * /api/early_access_features/ and /api/surveys/ through the fast path's routing
 * (matchFastRoute) and their Next route files, on a real database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { matchFastRoute } from "@/server/http/fast-routes";
import { asRouteHandler } from "@/server/http/raw";
import * as earlyAccessRoute from "@/app/api/early_access_features/route";
import * as surveysRoute from "@/app/api/surveys/route";

let db: Database;
let token = "";

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  token = (await bootstrap(db.prisma, { email: "lists@example.com", password: "pw12345678" })).project_api_key;
});

afterAll(async () => {
  await closeDb();
});

type Handler = (request: Request) => Promise<Response>;

const endpoints: Array<{ path: string; empty: unknown; route: Handler }> = [
  { path: "/api/early_access_features/", empty: { earlyAccessFeatures: [] }, route: earlyAccessRoute.GET },
  { path: "/api/surveys/", empty: { surveys: [], survey_config: null }, route: surveysRoute.GET },
];

async function call(handler: Handler, target: string, init: RequestInit = {}) {
  const response = await handler(new Request(`http://burrow.test${target}`, init));
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : null };
}

for (const { path, empty, route } of endpoints) {
  describe(`${path} (${testDbKind})`, () => {
    const fast = asRouteHandler(matchFastRoute(path)!);

    it("is on the fast path, with and without the trailing slash", () => {
      expect(matchFastRoute(path)).toBeDefined();
      expect(matchFastRoute(path.slice(0, -1))).toBe(matchFastRoute(path));
    });

    it("answers the project's (empty) list as posthog-js asks for it, with CORS for the page's origin", async () => {
      for (const handler of [fast, route]) {
        const response = await call(handler, `${path}?token=${token}&stage=beta&_=1732400000000`, { headers: { origin: "https://shop.example" } });
        expect(response.status).toBe(200);
        expect(response.body).toEqual(empty);
        expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example");
        expect(response.headers.get("content-type")).toBe("application/json");
      }
    });

    it("takes the key as api_key too (PostHog's get_token)", async () => {
      expect((await call(fast, `${path}?api_key=${token}`)).body).toEqual(empty);
    });

    it("answers a preflight", async () => {
      const response = await call(fast, path, { method: "OPTIONS", headers: { origin: "https://shop.example", "access-control-request-headers": "content-type" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe("https://shop.example");
      expect(response.headers.get("access-control-allow-headers")).toBe("content-type");
    });

    it("answers 401 missing_api_key without a key, 401 invalid_api_key for a key of no project, in JSON with CORS", async () => {
      for (const handler of [fast, route]) {
        for (const target of [path, `${path}?token=`, `${path}?token=%20`]) {
          const missing = await call(handler, target, { headers: { origin: "https://shop.example" } });
          expect(missing.status).toBe(401);
          expect(missing.body).toEqual({
            type: "authentication_error",
            code: "missing_api_key",
            detail: "API key not provided. You can find your project API key in Burrow's project settings.",
            attr: null,
          });
          expect(missing.headers.get("access-control-allow-origin")).toBe("https://shop.example");
        }
        // A NUL reached the key lookup and failed the query: a 503 that SDKs retried.
        for (const target of [`${path}?token=phc_noSuchProject`, `${path}?token=${token.slice(0, 5)}%00${token.slice(5)}`]) {
          const invalid = await call(handler, target);
          expect(invalid.status).toBe(401);
          expect(invalid.body).toEqual({
            type: "authentication_error",
            code: "invalid_api_key",
            detail: "Project API key invalid. You can find your project API key in Burrow's project settings.",
            attr: null,
          });
        }
      }
    });

    it("refuses writes with 405", async () => {
      const response = await call(fast, `${path}?token=${token}`, { method: "POST", body: "{}" });
      expect(response.status).toBe(405);
      expect(response.body).toMatchObject({ code: "method_not_allowed" });
    });
  });
}
