/**
 * The API reference at `/api/docs`: Swagger UI (the `swagger-ui-dist` package, Apache-2.0)
 * rendering `/api/schema/`, with its files served by Burrow itself — nothing is fetched from
 * another host (its validator badge, which would send the document's URL away, is off).
 * Public and the same for everyone, like the document.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

/** The only files served under `/api/docs/`: Swagger UI's bundle and styles, and our start-up script and theme. */
const PACKAGE_FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
};

const START = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/schema/",
    dom_id: "#reference",
    deepLinking: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayOperationId: false,
    persistAuthorization: false,
    tryItOutEnabled: false,
    validatorUrl: null,
  });
});
`;

/** Burrow's header and colours over Swagger UI's own look (tailwind.config.ts: brand and gray). */
const THEME = `body { margin: 0; background: #f9fafb; color: #101828; font-family: Inter, ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.burrow-bar { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; align-items: center; justify-content: space-between; padding: 0.75rem 1.5rem; background: #101828; color: #fff; }
.burrow-bar a { color: #fed7aa; text-decoration: none; }
.burrow-bar a:hover, .burrow-bar a:focus-visible { text-decoration: underline; }
.burrow-bar h1 { margin: 0; font-size: 1rem; font-weight: 600; }
.burrow-bar nav { display: flex; gap: 1rem; font-size: 0.875rem; }
.burrow-bar .mark { display: inline-block; width: 0.75rem; height: 0.75rem; margin-right: 0.5rem; border-radius: 9999px; background: #ea580c; vertical-align: -0.05rem; }
#reference .swagger-ui .wrapper { max-width: 1200px; }
#reference .swagger-ui .info { margin: 1.5rem 0; }
#reference .swagger-ui .btn.authorize { color: #c2410c; border-color: #c2410c; }
#reference .swagger-ui .btn.authorize svg { fill: #c2410c; }
#reference .swagger-ui .opblock-tag { border-bottom-color: #eaecf0; }
@media (max-width: 600px) { .burrow-bar { padding: 0.75rem 1rem; } #reference .swagger-ui .wrapper { padding: 0 0.5rem; } }
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Burrow</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<link rel="stylesheet" href="/api/docs/theme.css">
</head>
<body>
<header class="burrow-bar">
<h1><span class="mark" aria-hidden="true"></span>Burrow API reference</h1>
<nav aria-label="Reference">
<a href="/api/schema/">OpenAPI (JSON)</a>
<a href="/api/schema/?format=yaml">YAML</a>
<a href="/settings/personal-api-keys">Personal API keys</a>
<a href="/">Back to Burrow</a>
</nav>
</header>
<main id="reference"><noscript>The reference needs JavaScript; the document itself is at <a href="/api/schema/">/api/schema/</a>.</noscript></main>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/start.js"></script>
</body>
</html>
`;

export interface ReferenceFile {
  body: string | Uint8Array<ArrayBuffer>;
  contentType: string;
  etag: string;
}

const etagOf = (body: string | Uint8Array) => `"${createHash("sha1").update(body).digest("base64url")}"`;

const OWN_FILES: Record<string, ReferenceFile> = {
  "": { body: PAGE, contentType: "text/html; charset=utf-8", etag: etagOf(PAGE) },
  "start.js": { body: START, contentType: "application/javascript; charset=utf-8", etag: etagOf(START) },
  "theme.css": { body: THEME, contentType: "text/css; charset=utf-8", etag: etagOf(THEME) },
};

const packageFiles = new Map<string, Promise<ReferenceFile>>();

async function readPackageFile(name: string): Promise<ReferenceFile> {
  // Resolved from the working directory (Burrow's root), as npm start runs: Next's bundle has no node_modules of its own.
  const dir = path.dirname(createRequire(path.join(process.cwd(), "package.json")).resolve("swagger-ui-dist/package.json"));
  const body = new Uint8Array(await readFile(path.join(dir, name)));
  return { body, contentType: PACKAGE_FILES[name]!, etag: etagOf(body) };
}

/** The page (`""`) or one of its files, or null for any other name. */
export function referenceFile(name: string): Promise<ReferenceFile> | null {
  if (name in OWN_FILES) return Promise.resolve(OWN_FILES[name]!);
  if (!(name in PACKAGE_FILES)) return null;
  let file = packageFiles.get(name);
  if (!file) {
    file = readPackageFile(name);
    file.catch(() => packageFiles.delete(name));
    packageFiles.set(name, file);
  }
  return file;
}

/** A file as a response: cached for an hour, revalidated by ETag (the files change only with an upgrade). */
export async function referenceResponse(request: Request, name: string): Promise<Response> {
  const found = referenceFile(name);
  if (!found) return new Response("Not found.", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  const file = await found;
  const headers = { "content-type": file.contentType, etag: file.etag, "cache-control": "public, max-age=3600" };
  if (request.headers.get("if-none-match")?.split(",").some((tag) => tag.trim() === file.etag)) return new Response(null, { status: 304, headers });
  return new Response(request.method === "HEAD" ? null : file.body, { status: 200, headers });
}
