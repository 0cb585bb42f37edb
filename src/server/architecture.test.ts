/**
 * The house rules of src/server (README, "Layout"), checked on the source itself so that they
 * hold after the next change too:
 *
 *   - the server never imports the UI (`@/components`);
 *   - Prisma and SQL are called only in a domain's `store.ts` or `store/`, and in `db/`;
 *   - a `service.ts` never sees HTTP (`Request`, `Response`, `URLSearchParams`, `Headers`, `URL`);
 *   - no Next route file only re-exports another (the route table mounts both prefixes);
 *   - domains never import the edge (`src/server/http/`), which imports them;
 *   - a domain uses another only through its `contract.ts`, `service.ts` and `present.ts`
 *     (and the few more faces a domain declares in DECLARED_PUBLIC_FILES);
 *   - no import cycles, between files or between domains, type-only imports included;
 *   - a table's SQL only in its owner's store (TABLE_OWNERS), or in a declared read model;
 *   - no source file over MAX_LINES (tests and generated code aside);
 *   - test support (fixtures, helpers) in src/test-support/, never beside production code,
 *     and never imported by it.
 *
 * Tests and test support are exempt: they set up what the rules forbid services to do.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SERVER = path.join(ROOT, "src/server");

/** Shared building blocks, not domains: any file may import them, and they import no domain. */
const KERNEL = new Set(["context.ts", "errors.ts", "env.ts", "event-loop.ts", "periodic-pass.ts", "refreshed-in-background.ts", "db", "input", "properties", "geoip", "hogql", "sql", "analytics"]);
/** The edge: HTTP in and out. It imports domains; no domain imports it. */
const EDGE = "http";
/** What a domain shows other domains. */
const PUBLIC_FILES = new Set(["contract", "service", "present"]);
/**
 * A domain's further public files, each a second face for one caller: persons' identity path
 * is ingestion's hot path (resolve, merge, the distinct-id cache), apart from the management
 * API in its service.
 */
const DECLARED_PUBLIC_FILES: Record<string, ReadonlySet<string>> = { persons: new Set(["identity"]) };

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(full);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [full] : [];
  });
}

const rel = (file: string) => path.relative(ROOT, file);
/** The most lines a source file may have (tests aside: a table of cases reads best whole). */
const MAX_LINES = 450;
/** Generated code (Prisma's client, an `@generated` header) is not written by hand. */
const isGenerated = (file: string) => file.includes(`${path.sep}generated${path.sep}`) || /^\/[/*]\s*@generated/.test(fs.readFileSync(file, "utf8").slice(0, 200));
const TEST_SUPPORT = path.join(ROOT, "src/test-support");
/** What looks like test support by its name (a fixture, a testing helper) wherever it lies. */
const looksLikeTestSupport = (file: string) => /\.fixture\.tsx?$|\/testing\.ts$|\/testing\//.test(file);
const isTestCode = (file: string) => /\.(test|int\.test)\.tsx?$/.test(file) || file.startsWith(TEST_SUPPORT + path.sep) || looksLikeTestSupport(file);

/** The source without comments, so prose may name what code may not use. */
function code(file: string): string {
  return fs
    .readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

interface Import {
  target: string;
  typeOnly: boolean;
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?([^;]*?\bfrom\s+)?["']([^"']+)["']/gm;

function resolveSpecifier(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(ROOT, "src", specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

function importsOf(file: string): Import[] {
  const out: Import[] = [];
  for (const match of code(file).matchAll(IMPORT)) {
    const target = resolveSpecifier(file, match[4]!);
    // `import { type A, type B }` is type-only too.
    const names = match[3] ?? "";
    const allTypes = /^\{\s*(type\s+\w+(\s+as\s+\w+)?\s*,?\s*)+\}\s*from\s*$/.test(names.trim());
    if (target) out.push({ target, typeOnly: Boolean(match[2]) || allTypes });
  }
  return out;
}

/** `src/server/<domain>/…` → `<domain>` (a top-level file is its own module). */
function moduleOf(file: string): string | null {
  if (!file.startsWith(SERVER + path.sep)) return null;
  return path.relative(SERVER, file).split(path.sep)[0]!;
}

const serverFiles = walk(SERVER);
const productionFiles = serverFiles.filter((file) => !isTestCode(file));

function violations(check: (file: string) => string[]): string[] {
  return productionFiles.flatMap(check).sort();
}

const PRISMA_CALL =
  /\.\s*\$(transaction|queryRaw|queryRawUnsafe|executeRaw|executeRawUnsafe)\b|\b(prisma|tx|client)\s*\.\s*\w+\s*\.\s*(findMany|findFirst|findFirstOrThrow|findUnique|findUniqueOrThrow|create|createMany|createManyAndReturn|update|updateMany|upsert|delete|deleteMany|count|aggregate|groupBy)\s*\(/;
const SQL_CALL = /\b(sql|driver|executor)\s*\.\s*(query|exec|transaction)\s*(<[^>()]*>)?\s*\(/;

function inStore(file: string): boolean {
  const r = path.relative(SERVER, file);
  return r.startsWith(`db${path.sep}`) || /(^|\/)store\.ts$/.test(r) || r.split(path.sep).includes("store");
}

/** Every table of prisma/schema.prisma, with its Prisma delegate (`prisma.<delegate>.findMany`). */
const TABLES: { table: string; delegate: string }[] = [...fs.readFileSync(path.join(ROOT, "prisma/schema.prisma"), "utf8").matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)].map(
  ([, model, body]) => ({ table: /@@map\("(\w+)"\)/.exec(body!)?.[1] ?? model!, delegate: model![0]!.toLowerCase() + model!.slice(1) }),
);

/** The module whose store owns each table: only it writes the table's SQL. */
const TABLE_OWNERS: Record<string, string> = {
  users: "accounts",
  organizations: "accounts",
  organization_memberships: "accounts",
  organization_invites: "accounts",
  password_resets: "accounts",
  projects: "accounts",
  personal_api_keys: "accounts",
  activity_logs: "activity",
  alerts: "alerts",
  alert_checks: "alerts",
  batch_exports: "batch-exports",
  batch_export_runs: "batch-exports",
  batch_export_backfills: "batch-exports",
  cohorts: "cohorts",
  cohort_people: "cohorts",
  dashboards: "dashboards",
  dashboard_texts: "dashboards",
  dashboard_tiles: "dashboards",
  dashboard_collaborators: "dashboards",
  event_definitions: "definitions",
  property_definitions: "definitions",
  event_properties: "definitions",
  definition_volumes: "definitions",
  definition_backfills: "definitions",
  events: "db",
  actions: "actions",
  experiments: "experiments",
  experiment_holdouts: "experiments",
  experiment_saved_metrics: "experiments",
  experiment_to_saved_metrics: "experiments",
  hog_functions: "destinations",
  hog_function_outbox: "destinations",
  hog_function_outbox_batches: "destinations",
  hog_function_deliveries: "destinations",
  subscriptions: "subscriptions",
  early_access_features: "early-access",
  surveys: "surveys",
  recording_settings: "recordings",
  recordings: "recordings",
  recording_chunks: "recordings",
  sessions: "db",
  session_deltas: "db",
  feature_flags: "flags",
  feature_flag_hash_key_overrides: "flags",
  group_type_mappings: "groups",
  groups: "groups",
  insights: "insights",
  persons: "persons",
  person_distinct_ids: "persons",
  person_deletions: "persons",
  plugins: "transformations",
  plugin_configs: "transformations",
  plugin_config_metrics: "transformations",
  sharing_configurations: "sharing",
  tags: "tags",
  tagged_items: "tags",
};

/**
 * Read models: another module's store reading (or, where a transaction needs it, writing) a
 * table it does not own, declared here with why, file by file (paths under src/server).
 */
const READ_MODELS: Record<string, Record<string, string>> = {
  persons: {
    "destinations/store.ts": "a delivery's template and person filters read the event's person as it is now",
    "db/events/filters/postgres.ts": "the PostgreSQL event store joins each event's person for person-property filters",
    "db/events/filters/clickhouse.ts": "person filters and person breakdowns resolved in PostgreSQL for the ClickHouse event store",
    "db/events/filters/cohorts.ts": "cohort membership of an event's person, in the event store's filters",
    "db/events/filters/hogql-persons.ts": "person properties of HogQL select/where for the ClickHouse event store",
    "db/events/list/postgres.ts": "the event list's person given by integer id, and person columns",
    "db/events/list/clickhouse.ts": "the event list's person given by integer id",
    "db/events/trend/postgres.ts": "trends broken down by a person property",
    "db/events/web/postgres.ts": "web analytics' person filters",
    "events/store.ts": "the events API answers each event's person (PostHog's shape)",
    "cohorts/store.ts": "cohorts are computed over the project's persons",
    "flags/store.ts": "flag definitions' reload reads the persons of static cohorts for local evaluation",
    "lifecycle/store.ts": "lifecycle's `new` bucket is each person's creation",
  },
  person_distinct_ids: {
    "events/store.ts": "the events API answers each event's person with its distinct ids",
    "cohorts/store.ts": "static cohorts are uploaded by distinct id",
    "flags/store.ts": "flag evaluation reads a distinct id's person",
  },
  cohorts: {
    "db/events/filters/cohorts.ts": "cohort filters check the cohort is a live one of the project",
    "events/store.ts": "the explorer's cohort filter offers the project's live cohorts",
    "flags/store.ts": "flag definitions' reload reads the cohorts flags name",
    "persons/store.ts": "a person's page lists its cohorts",
  },
  cohort_people: {
    "db/events/filters/cohorts.ts": "cohort filters test membership",
    "flags/store.ts": "flag definitions' reload reads static cohorts' members",
    "persons/store.ts": "a person's page lists its cohorts; a merge moves the source's memberships in the merge's transaction",
  },
  feature_flag_hash_key_overrides: {
    "persons/store.ts": "a merge moves the source's overrides in the merge's transaction",
  },
  groups: { "flags/store.ts": "flag evaluation reads group properties" },
  hog_function_outbox_batches: { "db/events/insert/postgres.ts": "the events destinations want are written in the events' own statement (delivered at least once across a crash)" },
  group_type_mappings: { "flags/store.ts": "flag evaluation maps group types to indexes" },
  activity_logs: {
    "flags/store.ts": "a flag's history (PostHog's activity endpoint for flags)",
    "transformations/store.ts": "a transformation's history, written in the change's transaction",
  },
  dashboards: {
    "insights/store.ts": "an insight's dashboards (PostHog's `dashboards` field)",
    "sharing/store.ts": "a shared dashboard's content",
  },
  dashboard_tiles: { "insights/store.ts": "saving an insight to a dashboard adds its tile in the same transaction" },
  sharing_configurations: { "dashboards/store.ts": "a dashboard's sharing state in its answer" },
  tags: { "dashboards/store.ts": "dashboards' tags", "flags/store.ts": "flags' tags" },
  tagged_items: { "dashboards/store.ts": "dashboards' tags", "flags/store.ts": "flags' tags" },
  users: { "dashboards/store.ts": "a dashboard's creator and collaborators" },
  projects: {
    "destinations/store.ts": "a delivery's template reads the project's name",
    "db/events/move-to-clickhouse.ts": "the move to ClickHouse walks every project",
    "definitions/store.ts": "the definitions backfill walks every project",
    "flags/store.ts": "flag evaluation reads the project by its key",
    "ingestion/store.ts": "capture reads the project by its key",
    "query/store.ts": "queries read the project's time zone and test account filters",
  },
  surveys: { "flags/store.ts": "the flags list leaves out the flags surveys target, as PostHog's does" },
  experiments: { "flags/store.ts": "the flags list's `type=experiment` is the flags experiments run on" },
  events: {
    "hogql-query/contract.ts": "not SQL: the HogQL text PostHog's clients send names its `events` table in a message",
    "destinations/store.ts": "fanning an outbox batch out reads each event as the PostgreSQL event store holds it (the batch carries only ids)",
  },
};

/** The tables a file's SQL names (FROM, JOIN, INTO, UPDATE, TABLE) or reads through Prisma. */
function tablesOf(file: string): string[] {
  const source = code(file);
  return TABLES.filter(
    ({ table, delegate }) =>
      new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|TABLE)\\s+"?${table}"?\\b`).test(source) || new RegExp(`\\b(prisma|tx|client)\\s*\\.\\s*${delegate}\\s*\\.\\s*\\w+\\s*\\(`).test(source),
  ).map(({ table }) => table);
}

const RULES = {
  "server imports the UI": () =>
    violations((file) => (code(file).includes('"@/components') ? [rel(file)] : [])),

  "Prisma or SQL outside a store": () =>
    violations((file) => (!inStore(file) && (PRISMA_CALL.test(code(file)) || SQL_CALL.test(code(file))) ? [rel(file)] : [])),

  "HTTP in a service": () =>
    violations((file) =>
      path.basename(file) === "service.ts" && /\b(Request|Response|URLSearchParams|Headers|NextRequest|NextResponse)\b|\bnew URL\(/.test(code(file))
        ? [rel(file)]
        : [],
    ),

  "route file that only re-exports": () =>
    walk(path.join(ROOT, "src/app"))
      .filter((file) => path.basename(file) === "route.ts")
      .filter((file) => {
        const statements = code(file)
          .split(/;\s*\n|\n(?=\s*(?:import|export)\b)/)
          .map((s) => s.trim())
          .filter(Boolean);
        return statements.length > 0 && statements.every((s) => /^export\s+(\*|\{[^}]*\})\s+from\s+["']/.test(s) || /^export const (dynamic|runtime)\b/.test(s));
      })
      .map(rel)
      .sort(),

  "domain imports the edge": () =>
    violations((file) => {
      const module = moduleOf(file);
      if (module === EDGE) return [];
      return importsOf(file)
        .filter(({ target }) => moduleOf(target) === EDGE)
        .map(({ target }) => `${rel(file)} → ${rel(target)}`);
    }),

  "kernel imports a domain": () =>
    violations((file) => {
      const module = moduleOf(file);
      if (!module || !KERNEL.has(module)) return [];
      return importsOf(file)
        .filter(({ target }) => {
          const other = moduleOf(target);
          return other !== null && other !== module && !KERNEL.has(other);
        })
        .map(({ target }) => `${rel(file)} → ${rel(target)}`);
    }),

  "domain uses another's internals": () =>
    violations((file) => {
      const module = moduleOf(file);
      if (!module || module === EDGE || KERNEL.has(module)) return [];
      return importsOf(file)
        .filter(({ target }) => {
          const other = moduleOf(target);
          if (!other || other === module || other === EDGE || KERNEL.has(other) || isTestCode(target)) return false;
          const inner = path.relative(path.join(SERVER, other), target).replace(/\.tsx?$/, "");
          return !PUBLIC_FILES.has(inner) && !DECLARED_PUBLIC_FILES[other]?.has(inner);
        })
        .map(({ target }) => `${rel(file)} → ${rel(target)}`);
    }),

  "table without an owner": () => TABLES.filter(({ table }) => !TABLE_OWNERS[table]).map(({ table }) => table),

  "table's SQL outside its owner's store, undeclared": () =>
    violations((file) => {
      const module = moduleOf(file);
      const inner = path.relative(SERVER, file);
      return tablesOf(file)
        .filter((table) => !(module === TABLE_OWNERS[table] && inStore(file)) && !READ_MODELS[table]?.[inner])
        .map((table) => `${rel(file)}: ${table} (owned by ${TABLE_OWNERS[table] ?? "nobody"})`);
    }),

  "read model declared but not read": () =>
    Object.entries(READ_MODELS).flatMap(([table, readers]) =>
      Object.keys(readers)
        .filter((reader) => !fs.existsSync(path.join(SERVER, reader)) || !tablesOf(path.join(SERVER, reader)).includes(table))
        .map((reader) => `${table}: ${reader}`),
    ),

  "test support beside production code": () =>
    [...serverFiles, ...["src/app", "src/components", "src/trpc", "src/cli"].flatMap((dir) => walk(path.join(ROOT, dir)))]
      .filter(looksLikeTestSupport)
      .map(rel)
      .sort(),

  "production code importing test support": () =>
    violations((file) =>
      importsOf(file)
        .filter(({ target }) => isTestCode(target))
        .map(({ target }) => `${rel(file)} → ${rel(target)}`),
    ),

  "import cycle between files": () => {
    const graph = new Map(productionFiles.map((file) => [file, importsOf(file).filter((i) => !isTestCode(i.target)).map((i) => i.target)]));
    return cycles(graph).map((cycle) => cycle.map(rel).join(" → "));
  },

  "source file over 450 lines": () =>
    [...serverFiles, ...["src/app", "src/components", "src/trpc", "src/cli"].flatMap((dir) => walk(path.join(ROOT, dir)))]
      .filter((file) => !isTestCode(file) && !isGenerated(file) && fs.readFileSync(file, "utf8").split("\n").length - 1 > MAX_LINES)
      .map((file) => `${rel(file)}: ${fs.readFileSync(file, "utf8").split("\n").length - 1} lines`)
      .sort(),

  "import cycle between domains": () => {
    const graph = new Map<string, Set<string>>();
    for (const file of productionFiles) {
      const module = moduleOf(file);
      if (!module) continue;
      const edges = graph.get(module) ?? new Set<string>();
      graph.set(module, edges);
      for (const { target } of importsOf(file)) {
        const other = moduleOf(target);
        if (other && other !== module && !isTestCode(target)) edges.add(other);
      }
    }
    return cycles(new Map([...graph].map(([k, v]) => [k, [...v]]))).map((cycle) => cycle.join(" → "));
  },
} satisfies Record<string, () => string[]>;

/** One cycle per strongly connected component of more than one node (Tarjan), as a path back to its start. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe("the checks behind the house rules", () => {
  it("see Prisma and SQL calls, and not a tRPC query", () => {
    for (const call of ["db.prisma.dashboard.update({", "tx.insight.findMany(", "await prisma.$transaction(async (tx) =>", "client.$queryRaw`SELECT 1`"]) {
      expect(PRISMA_CALL.test(call), call).toBe(true);
    }
    for (const call of ["sql.query<{ id: number }>(", "driver.exec(", "executor.query("]) expect(SQL_CALL.test(call), call).toBe(true);
    for (const call of ["projectProcedure.query(({ ctx }) =>", "listDashboards(ctx, query)", "Object.create(null)"]) {
      expect(PRISMA_CALL.test(call) || SQL_CALL.test(call), call).toBe(false);
    }
  });

  it("find a cycle of two and of three, and none in a chain", () => {
    expect(cycles(new Map([["a", ["b"]], ["b", ["a"]], ["c", ["a"]]]))).toEqual([["a", "b"]]);
    expect(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]]]))).toEqual([["a", "b", "c"]]);
    expect(cycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  });

  it("read type-only imports apart from runtime ones", () => {
    const found = importsOf(path.join(SERVER, "tags/service.ts")).map(({ target, typeOnly }) => [rel(target), typeOnly]);
    expect(found).toContainEqual(["src/server/context.ts", true]);
    expect(found).toContainEqual(["src/server/tags/store.ts", false]);
  });
});

describe("the house rules of src/server", () => {
  for (const [rule, find] of Object.entries(RULES)) {
    it(`has no ${rule}`, () => {
      const found = find();
      expect(found, `${found.length} found:\n  ${found.join("\n  ")}\n`).toEqual([]);
    });
  }
});
