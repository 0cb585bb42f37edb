/**
 * The README and docs/ name files that must exist: relative links, and code spans or plain
 * words that look like repository paths (`src/server/...`, `bench/x.ts`, `e2e/...`). A file
 * moved or deleted without its docs fails here.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Top-level folders and files whose names start a repository path. */
const ROOTS = ["src", "e2e", "bench", "scripts", "prisma", "clickhouse", "docs", ".ci", "server.ts", "package.json", "next.config.mjs", "vitest.config.ts", "playwright.config.ts"];

function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return docs(full);
      return entry.name.endsWith(".md") ? [full] : [];
    });
  return [path.join(ROOT, "README.md"), ...docs(path.join(ROOT, "docs"))];
}

/** A path as written, or null when it is a pattern rather than a file (`<domain>`, `*`, `{id}`, `a|b`, `…`). */
function literalPath(text: string): string | null {
  const trimmed = text.replace(/[.,;:)]+$/, "").replace(/#.*$/, "");
  if (trimmed === "" || /[<>*{}|…$]|\.\.\.|\s/.test(trimmed)) return null;
  return trimmed;
}

/** Every path a Markdown file names: `[x](relative)`, and repository paths in code spans and text. */
export function namedPaths(markdown: string, file: string): { named: string; resolved: string }[] {
  const out: { named: string; resolved: string }[] = [];
  const withoutFences = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const [, target] of withoutFences.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith("#") || target!.startsWith("/")) continue;
    const named = literalPath(target!);
    if (named) out.push({ named, resolved: path.resolve(path.dirname(file), named) });
  }
  const roots = ROOTS.map((root) => root.replace(/\./g, "\\.")).join("|");
  // A path ends where a pattern would begin (`src/server/<domain>/`): those are not checked.
  const repoPath = new RegExp(`(?<![\\w./@-])((?:${roots})(?:/[\\w.@()\\[\\]%-]+)*/?)`, "g");
  const text = withoutFences.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1 ");
  for (const match of text.matchAll(repoPath)) {
    if (/[<{*|…:]/.test(text[match.index + match[0].length] ?? "")) continue;
    const named = literalPath(match[1]!);
    if (!named || !(named.includes("/") || named.includes("."))) continue;
    out.push({ named, resolved: path.join(ROOT, named) });
  }
  return out;
}

describe("the README and docs/", () => {
  it("name only files that exist", () => {
    const missing = markdownFiles().flatMap((file) =>
      namedPaths(fs.readFileSync(file, "utf8"), file)
        .filter(({ resolved }) => !fs.existsSync(resolved))
        .map(({ named }) => `${path.relative(ROOT, file)}: ${named}`),
    );
    expect(missing).toEqual([]);
  });

  it("keep the README a README (at most 300 lines)", () => {
    expect(fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(300);
  });

  it("see links, code spans and plain paths, and skip patterns and URLs", () => {
    const file = path.join(ROOT, "docs/x.md");
    const named = namedPaths(
      "See [a](api/events.md), [b](../README.md#tests), [c](https://example.com), `src/server/db/client.ts`, bench/web.ts, `src/server/<domain>/`, `dashboards/:id`, (e2e/restart.spec.ts).",
      file,
    ).map((entry) => entry.named);
    expect(named).toEqual(["api/events.md", "../README.md", "src/server/db/client.ts", "bench/web.ts", "e2e/restart.spec.ts"]);
  });
});
