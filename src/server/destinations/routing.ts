/**
 * Which destinations want an event, answered from memory on ingestion's hot path: every
 * enabled destination of every project with its compiled filters, read at start (warm-up)
 * and again every few seconds in the background, and at once after a change made through
 * this process. A project without destinations costs one Map lookup per event.
 */
import type { Database } from "@/server/db";
import { perDatabase } from "@/server/db/per-database";
import { actionDefinitions } from "@/server/actions/service";
import type { PropertyGroup } from "@/server/properties/contract";
import { destinationFiltersSchema } from "./contract";
import { compileFilters, testAccountsFor, type CompiledFilters, type MatchableEvent } from "./filters";
import * as store from "./store";

const REFRESH_MS = 5_000;

interface Routed {
  id: string;
  filters: CompiledFilters;
}

interface Routes {
  byProject: Map<number, Routed[]>;
  loadedAt: number;
  loading: Promise<void> | null;
}

// Modules load twice (Next's bundle and the server): a change made through the API (Next's
// copy) must reach the routes capture reads (the server's copy). Per database, as project ids
// are only unique within one (test files share a process).
const routes = perDatabase((_: Database): Routes => ({ byProject: new Map(), loadedAt: 0, loading: null }), "burrow.destinationRoutes");

async function load(db: Database): Promise<void> {
  const rows = await store.activeDestinations(db.prisma);
  const byProject = new Map<number, Routed[]>();
  for (const row of rows) {
    const parsed = destinationFiltersSchema.safeParse(row.filters);
    if (!parsed.success) continue;
    let trees = new Map<number, PropertyGroup>();
    const actionIds = parsed.data.actions.map((a) => a.id);
    if (actionIds.length > 0) {
      // An action deleted since matches nothing (its id is left out).
      const live = await Promise.all(actionIds.map((id) => actionDefinitions(db.prisma, row.projectId, [id]).catch(() => new Map())));
      trees = new Map(live.flatMap((found) => [...found.values()].map((d) => [d.id, d.tree] as [number, PropertyGroup])));
    }
    let compiled: CompiledFilters;
    try {
      compiled = compileFilters(parsed.data, trees, testAccountsFor(parsed.data, row.testAccountFilters));
    } catch {
      continue;
    }
    const list = byProject.get(row.projectId) ?? [];
    list.push({ id: row.id, filters: compiled });
    byProject.set(row.projectId, list);
  }
  const state = routes(db);
  state.byProject = byProject;
  state.loadedAt = Date.now();
}

/** Reads the routes again now (after a change, and at warm-up). */
export function reloadRoutes(db: Database): Promise<void> {
  const state = routes(db);
  const next = (state.loading ?? Promise.resolve()).then(() => load(db));
  const tracked = next.finally(() => {
    if (state.loading === tracked) state.loading = null;
  });
  state.loading = tracked;
  return tracked;
}

/**
 * The destinations (ids) whose filters each event may pass (null: the project has none). The first call of a process waits
 * for the routes; later ones never wait (a stale read starts a refresh in the background).
 */
export async function destinationsFor(db: Database, projectId: number, events: readonly MatchableEvent[]): Promise<(readonly string[] | undefined)[] | null> {
  const state = routes(db);
  if (state.loadedAt === 0) await (state.loading ?? reloadRoutes(db));
  else if (Date.now() - state.loadedAt > REFRESH_MS && !state.loading) void reloadRoutes(db).catch((error: unknown) => console.error("burrow: reading destinations failed", error));
  const routed = state.byProject.get(projectId);
  if (!routed) return null;
  return events.map((event) => {
    const ids = routed.filter((r) => r.filters.mayMatch(event)).map((r) => r.id);
    return ids.length > 0 ? ids : undefined;
  });
}
