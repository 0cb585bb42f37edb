/**
 * The OpenAPI 3.1 document of Burrow's API, generated from what serves it: the route table
 * (rest/routes.ts: each handler carries its scope and `OperationDoc`), the account routes
 * outside a project, and the SDK routes (sdk.ts), with the zod contracts as JSON Schema.
 * Served at `GET /api/schema/`; `/api/docs` renders it. It is the same for every caller and
 * names nothing of any project (no host, no keys, no data): it may be public, as PostHog's is.
 */
import { stringify } from "yaml";
import packageJson from "../../../../package.json";
import type { ScopeObject } from "@/server/auth/contract";
import { accountRoutes } from "@/server/http/rest/resources/accounts";
import { methodNotAllowed, operationOf, REST_METHODS, type RestPrefix, type RouteHandler, type RouteOperation } from "@/server/http/rest/route";
import { REST_ROUTES } from "@/server/http/rest/routes";
import { SchemaCollector } from "./json-schema";
import { SDK_OPERATIONS, type PathOperation } from "./sdk";
import { errorSchema } from "./shapes";

type Json = Record<string, unknown>;
type Method = "get" | "post" | "patch" | "put" | "delete";

/** Reference sections by the route table's path, longest prefix first. */
const TAGS: readonly [string, string][] = [
  ["dashboards/:id/collaborators", "Dashboard collaborators"],
  ["dashboards/:id/sharing", "Dashboard sharing"],
  ["dashboards", "Dashboards"],
  ["insights", "Insights"],
  ["query", "Query"],
  ["events", "Events"],
  ["event_definitions", "Definitions"],
  ["property_definitions", "Definitions"],
  ["feature_flags", "Feature flags"],
  ["cohorts", "Cohorts"],
  ["persons", "Persons"],
  ["pipeline_transformation_configs", "Transformations"],
  ["", "Projects"],
];

const ENVIRONMENTS_TAG = "Environments (aliases)";

const TAG_DESCRIPTIONS: Record<string, string> = {
  Projects: "Projects and who the key belongs to.",
  "Feature flags": "Flag management; flag management lives under `/api/projects/` only, as in PostHog.",
  [ENVIRONMENTS_TAG]:
    "Every project resource is also served under `/api/environments/{project_id}/` (PostHog's environments are Burrow's projects): the same operations, listed here once more.",
  Capture: "Ingestion for the SDKs: the project API key in the body, no personal key.",
  "Feature flags (SDK)": "What the SDKs call to evaluate flags.",
  Operations: "Health checks for load balancers and orchestrators.",
};

const PATH_PARAMETERS: Record<string, string> = {
  project_id: "A project's id, or `@current` (the key's or the user's current project).",
  id: "The object's id.",
  user_uuid: "The collaborator's user uuid.",
  user_id: "`@me`.",
  token: "The project API key.",
};

const DESCRIPTION = `Burrow's management API and the endpoints its SDKs call, as PostHog names them: the real posthog-js, posthog-node and posthog-python work against Burrow unchanged.

**Authentication.** Management routes take \`Authorization: Bearer <personal API key>\` (\`phx_…\`, made under Settings → Personal API keys or with \`admin create-api-key\`). Each operation names the scope it needs (\`x-required-scopes\`, and in its description); \`<object>:write\` implies \`<object>:read\`, \`*\` is every scope, and a key limited to projects sees only those. The browser session works too (writes only from Burrow's own origin). The SDK routes take the project API key in the request instead.

**Errors.** Management errors are one JSON body, \`{"type", "code", "detail", "attr"}\`: 400 \`validation_error\` (\`attr\` names the field), 401 no or bad key, 403 missing scope or another project, 404 no such object in this project, 405 a method the route does not have, 429 over 480 calls a minute (\`Retry-After\`). Bodies over 1 MB (20 MB on ingestion) are 413.

**Paths** answer with and without the trailing slash. Lists page with \`limit\` (default 100, at most 1000) and \`offset\`; \`next\` and \`previous\` are absolute URLs.

This document is the same for everyone and holds nothing of any project.`;

const ERROR_RESPONSES = {
  BadRequest: "Invalid input: `type` `validation_error`, `attr` names the field.",
  Unauthorized: "No key, or a key that is not valid (`authentication_error`).",
  Forbidden: "The key lacks the scope, or the project is not the key's (`permission_denied`).",
  NotFound: "No such object in this project, or no such project (`not_found`).",
  MethodNotAllowed: "A method the route does not have (`method_not_allowed`).",
  TooManyRequests: "Over the rate limit (`throttled`); `Retry-After` says when to try again.",
  PayloadTooLarge: "The body is over the limit (1 MB; 20 MB on ingestion).",
};

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_|_$/g, "");

function tagOf(path: string): string {
  return TAGS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`) || prefix === "")![1];
}

function scopesOf(operation: RouteOperation, method: Method): string[] {
  const implied = method === "get" ? "read" : "write";
  return (operation.scopes ?? []).map(({ object, action }: { object: ScopeObject; action?: string }) => `${object}:${action ?? implied}`);
}

class DocumentBuilder {
  private readonly schemas = new SchemaCollector();
  private readonly paths: Record<string, Record<string, Json>> = {};
  private readonly operationIds = new Set<string>();

  add(path: string, method: Method, tag: string, operation: RouteOperation, idPrefix: string, management: boolean): void {
    const { doc } = operation;
    const context = `${idPrefix}_${slug(doc.summary)}`;
    if (this.operationIds.has(context)) throw new Error(`two operations would be called ${context}`);
    this.operationIds.add(context);
    const scopes = scopesOf(operation, method);
    const notes: string[] = [];
    if (management) notes.push(`Required scope${scopes.length > 1 ? "s" : ""}: ${scopes.map((scope) => `\`${scope}\``).join(" and ")}.`);
    for (const [type, text] of Object.entries(doc.requestMedia ?? {})) notes.push(`Request as \`${type}\`: ${text}`);
    for (const [type, text] of Object.entries(doc.media ?? {})) notes.push(`Answer as \`${type}\`: ${text}`);
    const parameters = [...this.pathParameters(path), ...this.queryParameters(operation, context)];
    const out: Json = {
      operationId: context,
      summary: doc.summary,
      description: [doc.description, ...notes].filter(Boolean).join("\n\n"),
      tags: [tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(doc.body ? { requestBody: this.requestBody(operation, context) } : {}),
      responses: this.responses(operation, method, context, management),
      security: this.security(operation, scopes),
      ...(scopes.length > 0 ? { "x-required-scopes": scopes } : {}),
    };
    (this.paths[path] ??= {})[method] = out;
  }

  private pathParameters(path: string): Json[] {
    return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: "path",
      required: true,
      description: PATH_PARAMETERS[name!] ?? name,
      schema: { type: "string" },
    }));
  }

  private queryParameters(operation: RouteOperation, context: string): Json[] {
    if (!operation.doc.query) return [];
    const schema = this.schemas.convert(operation.doc.query, "input", `${context}_query`);
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const required = new Set((schema.required ?? []) as string[]);
    return Object.entries(properties).map(([name, property]) => {
      const { description, ...rest } = property;
      return { name, in: "query", required: required.has(name), ...(description ? { description } : {}), schema: rest };
    });
  }

  private requestBody(operation: RouteOperation, context: string): Json {
    const content: Json = { "application/json": { schema: this.schemas.ref(operation.doc.body!, "input", `${context}_body`) } };
    for (const type of Object.keys(operation.doc.requestMedia ?? {})) content[type] = { schema: type === "multipart/form-data" ? { type: "object" } : { type: "string" } };
    return { required: true, content };
  }

  private responses(operation: RouteOperation, method: Method, context: string, management: boolean): Json {
    const { doc, status } = operation;
    const content: Json = {};
    if (doc.response) content["application/json"] = { schema: this.schemas.ref(doc.response, "output", `${context}_response`) };
    for (const type of Object.keys(doc.media ?? {})) content[type] = { schema: { type: "string" } };
    const success: Json = { description: status === 405 ? "Not allowed (after the key and scope checks)." : doc.summary };
    if (Object.keys(content).length > 0) success.content = content;
    const ref = (name: keyof typeof ERROR_RESPONSES) => ({ $ref: `#/components/responses/${name}` });
    const out: Json = { [String(status)]: success };
    if (doc.query || doc.body || !management) out["400"] = ref("BadRequest");
    if (operation.scopes !== null || !management) out["401"] = ref("Unauthorized");
    if (management) {
      out["403"] = ref("Forbidden");
      out["404"] = ref("NotFound");
      if (status !== 405) out["405"] = ref("MethodNotAllowed");
      out["429"] = ref("TooManyRequests");
    }
    if (method !== "get") out["413"] = ref("PayloadTooLarge");
    return out;
  }

  private security(operation: RouteOperation, scopes: string[]): Json[] {
    if (operation.scopes === null) return [];
    return [{ personalApiKey: scopes }, ...(operation.secretKey ? [{ projectSecretKey: [] }] : [])];
  }

  document(): Json {
    const errors = this.schemas.ref(errorSchema, "output", "Error");
    const tags = [...new Set(Object.values(this.paths).flatMap((methods) => Object.values(methods).flatMap((op) => op.tags as string[])))];
    return {
      openapi: "3.1.0",
      info: { title: "Burrow API", version: packageJson.version, description: DESCRIPTION },
      servers: [{ url: "/", description: "This Burrow" }],
      tags: tags.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
      paths: this.paths,
      components: {
        schemas: this.schemas.components,
        responses: Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([name, description]) => [name, { description, content: { "application/json": { schema: errors } } }])),
        securitySchemes: {
          personalApiKey: { type: "http", scheme: "bearer", description: "A personal API key (`phx_…`) with the scopes the operation names." },
          projectSecretKey: { type: "http", scheme: "bearer", description: "The project's secret key (`phs_…`), for server SDKs' flag definitions and payloads." },
        },
      },
    };
  }
}

const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

function tableRoutes(builder: DocumentBuilder): void {
  for (const prefix of ["projects", "environments"] as RestPrefix[]) {
    for (const resource of REST_ROUTES) {
      if (resource.prefixes && !resource.prefixes.includes(prefix)) continue;
      const path = `/api/${prefix}/{project_id}/${resource.path ? `${openApiPath(resource.path)}/` : ""}`;
      for (const method of REST_METHODS) {
        const handler = resource.methods[method];
        if (!handler || handler === methodNotAllowed) continue;
        const operation = operationOf(handler);
        if (!operation) throw new Error(`${method} ${path} has no OperationDoc: document it in its resource (http/rest/resources/)`);
        const tag = prefix === "projects" ? tagOf(resource.path) : ENVIRONMENTS_TAG;
        builder.add(path, method.toLowerCase() as Method, tag, operation, prefix, true);
      }
    }
  }
}

function accountOperations(): PathOperation[] {
  const tags: Record<string, string> = { projects: "Projects", user: "Projects", plugins: "Transformations" };
  return Object.entries(accountRoutes).flatMap(([name, route]) =>
    Object.entries(route.methods as Record<string, RouteHandler>).flatMap(([method, handler]) => {
      const operation = operationOf(handler);
      if (!operation && handler !== methodNotAllowed) throw new Error(`${method} ${route.path} has no OperationDoc`);
      return operation ? [{ path: route.path, method: method.toLowerCase() as "get", tag: tags[name]!, operation }] : [];
    }),
  );
}

function buildDocument(): Json {
  const builder = new DocumentBuilder();
  for (const { path, method, tag, operation } of accountOperations()) builder.add(path, method, tag, operation, "account", true);
  tableRoutes(builder);
  for (const { path, method, tag, operation } of SDK_OPERATIONS) builder.add(path, method, tag, operation, "sdk", false);
  return builder.document();
}

let built: { json: string; yaml: string; document: Json } | undefined;

/** The document, built once per process (it depends only on the code). */
export function openApiDocument(): { json: string; yaml: string; document: Json } {
  if (!built) {
    const document = buildDocument();
    built = { document, json: JSON.stringify(document), yaml: stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 }) };
  }
  return built;
}
