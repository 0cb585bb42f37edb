/**
 * The route table's matching, as the two catch-all Next routes use it: the same resource
 * under both prefixes (unless limited to one), with or without the trailing slash, literal
 * segments before `:params`, unknown paths and methods answered as per-resource route files
 * answered them (Next's not-found; PostHog's 405, or Next's empty 405 for a method a file
 * did not define).
 */
import { describe, expect, it } from "vitest";
import { restRouteHandlers } from "./next-routes";
import { allowHeader, handlerFor, isUnknownRestPath, matchRestRoute, REST_ROUTES } from "./routes";

const segments = (path: string) => path.split("/").slice(1);
const at = (prefix: "projects" | "environments", path: string) => matchRestRoute(prefix, path === "" ? [] : path.split("/"));

describe("route table", () => {
  it("declares each path once", () => {
    const paths = REST_ROUTES.map((resource) => resource.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("mounts a resource under both prefixes, with its :params", () => {
    for (const prefix of ["projects", "environments"] as const) {
      const match = at(prefix, "dashboards/12/collaborators/0190-abc");
      expect(match?.resource.path).toBe("dashboards/:id/collaborators/:user_uuid");
      expect(match?.params).toEqual({ id: "12", user_uuid: "0190-abc" });
    }
  });

  it("matches with and without the trailing slash (Next's catch-all may keep an empty last segment)", () => {
    expect(at("projects", "insights/7/")?.resource.path).toBe("insights/:id");
    expect(at("projects", "insights/7")?.resource.path).toBe("insights/:id");
    expect(at("environments", "")?.resource.path).toBe("");
    expect(matchRestRoute("environments", [""])?.resource.path).toBe("");
  });

  it("prefers a literal segment to a :param, as Next prefers a static folder", () => {
    expect(at("projects", "events/values")?.resource.path).toBe("events/values");
    expect(at("projects", "events/0190f1c2")?.resource.path).toBe("events/:id");
    expect(at("environments", "pipeline_transformation_configs/rearrange")?.resource.path).toBe("pipeline_transformation_configs/rearrange");
  });

  it("serves flag management only under /api/projects/, and remote_config under both", () => {
    expect(at("projects", "feature_flags")?.resource.path).toBe("feature_flags");
    expect(at("projects", "feature_flags/3")?.resource.path).toBe("feature_flags/:id");
    expect(at("environments", "feature_flags")).toBeUndefined();
    expect(at("environments", "feature_flags/3")).toBeUndefined();
    expect(at("environments", "feature_flags/my-flag/remote_config")?.params).toEqual({ id: "my-flag" });
  });

  it("knows no other path", () => {
    for (const path of ["nope", "dashboards/1/nope", "dashboards/1/sharing/refresh/again", "events/values/1", "feature_flags/1/remote_config/x"]) {
      expect(at("projects", path), path).toBeUndefined();
    }
  });

  it("answers a method a resource does not serve with PostHog's 405, and POST on the project with Next's empty one", async () => {
    const events = at("projects", "events")!.resource;
    const refused = await handlerFor(events, "DELETE")(new Request("http://localhost/api/projects/1/events/", { method: "DELETE" }), { params: Promise.resolve({}) });
    expect(refused.status).toBe(405);
    expect(await refused.json()).toEqual({ type: "invalid_request", code: "method_not_allowed", detail: 'Method "DELETE" not allowed.', attr: null });
    const project = at("projects", "")!.resource;
    const empty = await handlerFor(project, "POST")(new Request("http://localhost/api/projects/1/", { method: "POST" }), { params: Promise.resolve({}) });
    expect([empty.status, await empty.text()]).toEqual([405, ""]);
  });

  it("lists in Allow what a route file exporting the same methods listed", () => {
    expect(allowHeader(at("projects", "events")!.resource)).toBe("DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT");
    expect(allowHeader(at("projects", "")!.resource)).toBe("DELETE, GET, HEAD, OPTIONS, PATCH, PUT");
  });
});

describe("unknown paths under the prefixes (server.ts renders the 404 page for them)", () => {
  it("are the paths under /api/<prefix>/:project_id/ that name no resource", () => {
    for (const path of ["/api/projects/1/nope/", "/api/environments/@current/feature_flags/", "/api/projects/1/dashboards/2/x"]) {
      expect(isUnknownRestPath(path), path).toBe(true);
    }
    for (const path of ["/api/projects/1", "/api/projects/1/", "/api/environments/@current/dashboards/2", "/api/projects/1/events/%30190/", "/api/projects/", "/api/users/@me/", "/api/trpc/x", "/api/projects/1/%E0%A4%A/"]) {
      expect(isUnknownRestPath(path), path).toBe(false);
    }
  });
});

describe("catch-all route handlers", () => {
  const environments = restRouteHandlers("environments");
  const call = (method: "OPTIONS" | "PUT", path: string) =>
    environments[method](new Request(`http://localhost/api/environments/1/${path}`, { method }), {
      params: Promise.resolve({ project_id: "1", path: path === "" ? undefined : segments(`/${path}`) }),
    });

  it("answers OPTIONS with the resource's Allow", async () => {
    const response = await call("OPTIONS", "dashboards/5/sharing/");
    expect(response.status).toBe(204);
    expect(response.headers.get("allow")).toBe("DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT");
    expect((await call("OPTIONS", "")).headers.get("allow")).toBe("DELETE, GET, HEAD, OPTIONS, PATCH, PUT");
  });

  it("dispatches to the resource's handler for the method", async () => {
    const response = await call("PUT", "pipeline_transformation_configs/5/job");
    expect(response.status).toBe(405);
    expect((await response.json()).code).toBe("method_not_allowed");
  });

  it("leaves an unknown path to Next's not-found", async () => {
    await expect(call("PUT", "feature_flags")).rejects.toMatchObject({ digest: "NEXT_HTTP_ERROR_FALLBACK;404" });
    await expect(call("OPTIONS", "nope/")).rejects.toMatchObject({ digest: "NEXT_HTTP_ERROR_FALLBACK;404" });
  });
});
