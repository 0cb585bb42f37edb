/**
 * Every management route, called through its real Next route handler on a real database:
 * no key and a wrong key get 401, a key without the scope gets 403, a key of another
 * organization or limited to another project gets 403, an unknown project 404 — each
 * with PostHog's error body. A route added under src/app/api must be added to ROUTES.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey, createUser } from "@/server/accounts/service";
import type { Scope } from "@/server/auth/scopes";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/server/db/testing";
import { insertEvents } from "@/server/events/store";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Method = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

interface RouteCase {
  /** The route file under src/app/api. */
  file: string;
  /** Path with `{project}` where the project id goes. */
  path: string;
  params: (project: string) => Record<string, string>;
  /** Per method: the scope it needs (null: any authenticated caller), and a valid body. */
  methods: Partial<Record<Method, { scope: Scope | null; body?: unknown; ok: number }>>;
}

/** An event stored in both projects, for the routes that read one. */
const EVENT_UUID = "0190f1c2-0000-7000-8000-00000000e5e5";

const ROUTES: RouteCase[] = [
  {
    file: "users/[user_id]/route.ts",
    path: "/api/users/@me/",
    params: () => ({ user_id: "@me" }),
    methods: { GET: { scope: null, ok: 200 } },
  },
  {
    file: "projects/route.ts",
    path: "/api/projects/",
    params: () => ({}),
    methods: { GET: { scope: null, ok: 200 } },
  },
  {
    file: "projects/[project_id]/route.ts",
    path: "/api/projects/{project}/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "project:read", ok: 200 } },
  },
  {
    file: "environments/[project_id]/route.ts",
    path: "/api/environments/{project}/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "project:read", ok: 200 } },
  },
  {
    file: "projects/[project_id]/events/route.ts",
    path: "/api/projects/{project}/events/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    file: "projects/[project_id]/events/[id]/route.ts",
    path: `/api/projects/{project}/events/${EVENT_UUID}/`,
    params: (project) => ({ project_id: project, id: EVENT_UUID }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    file: "projects/[project_id]/events/values/route.ts",
    path: "/api/projects/{project}/events/values/?key=$browser",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    file: "environments/[project_id]/events/route.ts",
    path: "/api/environments/{project}/events/",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    file: "environments/[project_id]/events/[id]/route.ts",
    path: `/api/environments/{project}/events/${EVENT_UUID}/`,
    params: (project) => ({ project_id: project, id: EVENT_UUID }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
  {
    file: "environments/[project_id]/events/values/route.ts",
    path: "/api/environments/{project}/events/values/?key=$browser",
    params: (project) => ({ project_id: project }),
    methods: { GET: { scope: "query:read", ok: 200 } },
  },
];

const API_DIR = path.resolve("src/app/api");
/** Routes that are not management routes: they have their own authentication. */
const NOT_MANAGEMENT = ["auth/", "trpc/"];

function routeFiles(dir = API_DIR): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [path.relative(API_DIR, full)] : [];
  });
}

describe(`management routes: authentication, scopes and project access (${testDbKind})`, () => {
  let db: Database;
  let projectId: number;
  let otherProjectId: number;
  const keys = {} as Record<"all" | "none" | "limitedElsewhere" | "otherOrg", string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    registerDb(db);
    const alice = await bootstrap(db.prisma, { email: "alice@example.com", password: "pw12345678" });
    projectId = alice.project_id;
    keys.all = alice.personal_api_key;
    const other = await db.prisma.project.create({ data: { organizationId: alice.organization_id, name: "Second", apiToken: "phc_second" } });
    otherProjectId = other.id;
    await insertEvents(
      db.sql,
      [projectId, otherProjectId].map((id) => ({ uuid: EVENT_UUID, projectId: id, event: "$pageview", distinctId: "d", properties: { $browser: "Firefox" }, timestamp: new Date() })),
    );
    keys.none = (await createPersonalApiKey(db.prisma, alice.user.id, { scopes: ["feature_flag:read"] })).key;
    keys.limitedElsewhere = (await createPersonalApiKey(db.prisma, alice.user.id, { scopes: ["*"], projectId: otherProjectId })).key;
    const bob = await bootstrap(db.prisma, { email: "bob@example.com", password: "pw12345678", organization: "Bob's" });
    keys.otherOrg = bob.personal_api_key;
    await createUser(db.prisma, { email: "carol@example.com", password: "pw12345678", organizationId: alice.organization_id });
  });
  afterAll(async () => {
    await closeDb();
  });

  async function call(route: RouteCase, method: Method, key: string | null, project = String(projectId)) {
    const module = (await import(`@/app/api/${route.file.replace(/\.ts$/, "")}`)) as Record<string, Handler>;
    const handler = module[method];
    if (!handler) throw new Error(`${route.file} has no ${method}`);
    const spec = route.methods[method]!;
    const request = new Request(`http://localhost${route.path.replace("{project}", project)}`, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    });
    const response = await handler(request, { params: Promise.resolve(route.params(project)) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  it("lists every management route file", () => {
    const files = routeFiles().filter((file) => !NOT_MANAGEMENT.some((prefix) => file.startsWith(prefix)));
    expect(files.sort()).toEqual(ROUTES.map((route) => route.file).sort());
  });

  for (const route of ROUTES) {
    for (const [method, spec] of Object.entries(route.methods) as [Method, NonNullable<RouteCase["methods"][Method]>][]) {
      describe(`${method} ${route.path}`, () => {
        it("answers 401 not_authenticated without a key", async () => {
          expect(await call(route, method, null)).toEqual({
            status: 401,
            body: { type: "authentication_error", code: "not_authenticated", detail: "Authentication credentials were not provided.", attr: null },
          });
        });

        it("answers 401 authentication_failed for a wrong key", async () => {
          const { status, body } = await call(route, method, "phx_thisIsNotAKeyOfAnyone0123456789");
          expect(status).toBe(401);
          expect(body).toEqual({ type: "authentication_error", code: "authentication_failed", detail: expect.stringMatching(/invalid/), attr: null });
        });

        it(`answers ${spec.ok} to a key with every scope`, async () => {
          expect((await call(route, method, keys.all)).status).toBe(spec.ok);
        });

        if (spec.scope === null) return;
        const scope = spec.scope;

        it(`answers 403 to a key without ${scope}`, async () => {
          expect(await call(route, method, keys.none)).toEqual({
            status: 403,
            body: { type: "authentication_error", code: "permission_denied", detail: `API key missing required scope '${scope}'`, attr: null },
          });
        });

        it("answers 403 to a key of another organization", async () => {
          const { status, body } = await call(route, method, keys.otherOrg);
          expect(status).toBe(403);
          expect(body).toMatchObject({ type: "authentication_error", code: "permission_denied", attr: null });
        });

        it("answers 403 to a key limited to another project, and serves that project", async () => {
          const { status, body } = await call(route, method, keys.limitedElsewhere);
          expect(status).toBe(403);
          expect(body).toMatchObject({ code: "permission_denied", detail: "API key does not have access to the requested project." });
          expect((await call(route, method, keys.limitedElsewhere, String(otherProjectId))).status).toBe(spec.ok);
        });

        it("answers 404 for a project that does not exist, and resolves @current", async () => {
          expect(await call(route, method, keys.all, "999999")).toEqual({
            status: 404,
            body: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null },
          });
          expect((await call(route, method, keys.all, "not-a-number")).status).toBe(404);
          expect((await call(route, method, keys.all, "@current")).status).toBe(spec.ok);
        });
      });
    }
  }

  it("lists only the projects a project-limited key may use, with PostHog's pagination envelope", async () => {
    const route = ROUTES.find((r) => r.file === "projects/route.ts")!;
    expect((await call(route, "GET", keys.limitedElsewhere)).body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [{ id: otherProjectId, name: "Second", organization: expect.any(String) }],
    });
    expect((await call(route, "GET", keys.all)).body).toMatchObject({ count: 2 });
  });
});
