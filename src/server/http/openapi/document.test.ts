/**
 * The OpenAPI document as CI checks it: valid OpenAPI 3.1 (an independent validator from npm),
 * covering every route Burrow serves with its scopes and error shape, the same as YAML, and
 * served (with the reference page) as documented. Real answers against its schemas:
 * responses.int.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ALL_SCOPES } from "@/server/auth/contract";
import { openApiDocument } from "./document";
import { referenceResponse } from "./reference-page";
import { schemaResponse } from "./schema-route";

type Json = Record<string, any>;

const { json, yaml } = openApiDocument();
const document = openApiDocument().document as Json;
const operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
);
const management = operations.filter(({ path }) => /^\/api\/(projects|environments|users|plugins)\//.test(path));

/** Route files that are not API: the app's own machinery, and the reference itself. */
const NOT_API = ["api/auth/", "api/trpc/", "api/docs", "api/schema", "static/", "array/{token}/config.js"];

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents every route file Burrow serves (the route table's catch-alls through their resources)", () => {
    const appDir = path.resolve("src/app");
    const documented = new Set(Object.keys(document.paths).map((p) => p.replace(/\/$/, "")));
    const missing = (routes: string[]) => routes.filter((route) => !documented.has(`/${route}`));
    const routes = routeFiles(appDir)
      .map((file) =>
        path
          .relative(appDir, path.dirname(file))
          .split(path.sep)
          .join("/")
          .replace(/^%5F/, "_")
          .replace(/\[(\w+)\]/g, "{$1}"),
      )
      .filter((route) => !route.includes("[[...") && !route.startsWith("(") && !NOT_API.some((prefix) => route.startsWith(prefix)));
    expect(routes.length).toBeGreaterThan(15);
    expect(missing(routes)).toEqual([]);
    expect(missing(["api/not_documented"])).toEqual(["api/not_documented"]);
    for (const resource of ["dashboards/{id}/sharing/refresh", "cohorts/{id}/add_persons_to_static_cohort", "query", "persons/bulk_delete"]) {
      expect(documented.has(`/api/projects/{project_id}/${resource}`), resource).toBe(true);
      expect(documented.has(`/api/environments/{project_id}/${resource}`), resource).toBe(true);
    }
    expect(documented.has("/api/environments/{project_id}/feature_flags")).toBe(false);
  });

  it("names each management operation's scopes, as security and x-required-scopes, from the route table", () => {
    for (const { path, method, operation } of management) {
      const scopes = operation["x-required-scopes"] as string[];
      expect(scopes.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const scope of scopes) expect(ALL_SCOPES, `${method} ${path}`).toContain(scope);
      expect(operation.security[0], `${method} ${path}`).toEqual({ personalApiKey: scopes });
      expect(operation.description).toContain(`\`${scopes[0]}\``);
    }
    const scopesOf = (path: string, method: string) => operations.find((op) => op.path === path && op.method === method)!.operation["x-required-scopes"];
    expect(scopesOf("/api/projects/{project_id}/dashboards/", "get")).toEqual(["dashboard:read"]);
    expect(scopesOf("/api/projects/{project_id}/dashboards/{id}/", "patch")).toEqual(["dashboard:write"]);
    expect(scopesOf("/api/projects/{project_id}/query/", "post")).toEqual(["query:read"]);
    expect(scopesOf("/api/projects/{project_id}/cohorts/{id}/persons/", "get")).toEqual(["cohort:read", "person:read"]);
    expect(scopesOf("/api/users/{user_id}/", "get")).toEqual(["user:read"]);
  });

  it("gives every management operation PostHog's error body for 401, 403 and 404", () => {
    expect(document.components.schemas.Error).toMatchObject({ required: ["type", "code", "detail", "attr"], additionalProperties: false });
    for (const { path, method, operation } of management) {
      for (const status of ["401", "403", "404", "429"]) expect(operation.responses[status], `${method} ${path} ${status}`).toBeDefined();
    }
    const retrieve = operations.find((op) => op.path === "/api/projects/{project_id}/dashboards/" && op.method === "post")!.operation;
    expect(retrieve.responses["400"]).toEqual({ $ref: "#/components/responses/BadRequest" });
    expect(retrieve.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Dashboard" });
    expect(document.components.responses.BadRequest.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
  });

  it("describes parameters, bodies and answers from the contracts, not empty objects", () => {
    const list = operations.find((op) => op.path === "/api/projects/{project_id}/dashboards/" && op.method === "get")!.operation;
    expect(list.parameters.map((p: Json) => p.name)).toEqual(["project_id", "limit", "offset", "search", "tags", "deleted"]);
    const create = operations.find((op) => op.path === "/api/projects/{project_id}/feature_flags/" && op.method === "post")!.operation;
    expect(create.requestBody.content["application/json"].schema.required).toContain("key");
    for (const { path, method, operation } of operations) {
      const success = Object.entries(operation.responses as Json).find(([status]) => status.startsWith("2"));
      const schema = success?.[1].content?.["application/json"]?.schema;
      if (schema) expect(JSON.stringify(schema), `${method} ${path}`).not.toBe("{}");
    }
    for (const [name, schema] of Object.entries(document.components.schemas as Json)) expect(Object.keys(schema).length, name).toBeGreaterThan(0);
  });

  it("documents the SDK routes without personal keys", () => {
    for (const route of ["/capture/", "/batch/", "/e/", "/i/v0/e/", "/decide/", "/flags/", "/api/surveys/", "/api/early_access_features/", "/array/{token}/config"]) {
      const methods = document.paths[route];
      expect(methods, route).toBeDefined();
      for (const operation of Object.values(methods as Record<string, Json>)) expect(operation.security, route).toEqual([]);
    }
    expect(document.paths["/flags/definitions"].get.security).toEqual([{ personalApiKey: ["feature_flag:read"] }, { projectSecretKey: [] }]);
  });

  it("is the same as YAML, and names no host", () => {
    expect(parse(yaml)).toEqual(JSON.parse(json));
    expect(document.servers).toEqual([{ url: "/", description: "This Burrow" }]);
    expect(json).not.toMatch(/localhost|127\.0\.0\.1|phc_[A-Za-z0-9]{8}/);
  });
});

describe("GET /api/schema/ and /api/docs", () => {
  const get = (url: string, headers: Record<string, string> = {}) => new Request(`http://burrow.test${url}`, { headers });

  it("serves the document as JSON by default and YAML on request, with an ETag", async () => {
    const answer = await schemaResponse(get("/api/schema/"));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await answer.json()).toEqual(document);
    const yamlAnswer = await schemaResponse(get("/api/schema/?format=yaml"));
    expect(yamlAnswer.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(parse(await yamlAnswer.text()).openapi).toBe("3.1.0");
    const again = await schemaResponse(get("/api/schema/", { "if-none-match": answer.headers.get("etag")! }));
    expect(again.status).toBe(304);
  });

  it("refuses another format with PostHog's error body", async () => {
    const answer = await schemaResponse(get("/api/schema/?format=xml"));
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({ type: "validation_error", code: "invalid_input", detail: "format must be 'json' or 'yaml'.", attr: "format" });
  });

  it("serves the reference page and its files from Burrow itself, nothing else", async () => {
    const page = await referenceResponse(get("/api/docs"), "");
    const html = await page.text();
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources.every((source) => source!.startsWith("/"))).toBe(true);
    for (const name of ["swagger-ui-bundle.js", "swagger-ui.css", "start.js", "theme.css"]) {
      const file = await referenceResponse(get(`/api/docs/${name}`), name);
      expect(file.status, name).toBe(200);
      expect((await file.arrayBuffer()).byteLength, name).toBeGreaterThan(100);
    }
    const start = await (await referenceResponse(get("/api/docs/start.js"), "start.js")).text();
    expect(start).toContain("validatorUrl: null");
    for (const name of ["../package.json", "index.html", "swagger-ui-bundle.js.map", "%2e%2e"]) expect((await referenceResponse(get("/api/docs/x"), name)).status, name).toBe(404);
  });
});
