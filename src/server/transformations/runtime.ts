/**
 * Transformations on the ingestion path: each project's chain of enabled configs, in
 * order, built once and kept in memory. Ingestion asks for a project's chain once per
 * request; while nothing changed that is a map lookup (no query), and a project without
 * configs gets an empty chain. Every config write publishes the project on the
 * database's change feed: this node drops the chain at once, other nodes within a second
 * (LISTEN/NOTIFY); a 10 s TTL is the safety net for a notification that never came.
 *
 * A step counts what it saw, dropped and failed on (RunStats). A transform that throws
 * leaves the event as it was (transforms are pure, see plugin.ts): the chain goes on with
 * the unchanged event, and the error is recorded on the config.
 */
import type { Database } from "@/server/db";
import { ALL_KEYS } from "@/server/db/changes";
import type { IngestEvent, TransformChain, TransformationsFor } from "@/server/ingestion/contract";
import { builtinPlugin, parsePluginConfig } from "./catalogue";
import type { Transform } from "./plugin";
import { RunStats } from "./stats";
import { loadChainConfigs, type ChainConfig } from "./store";
import { perDatabase } from "@/server/db/per-database";

const CHAIN_TTL_MS = 10_000;
/** Change-feed topic; keys are project ids whose configs changed. */
const TRANSFORMATIONS_TOPIC = "transformations";

/** How an error reads on the config and in its activity (no stack: it may be long and says little to users). */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : `Error: ${String(error)}`;
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}

/** The config's transform; one that cannot be built (unknown plugin, config the plugin no longer accepts) fails every event. */
export function buildTransform(config: ChainConfig): Transform {
  try {
    const plugin = builtinPlugin(config.pluginKey);
    if (!plugin) throw new Error(`The plugin '${config.pluginKey}' is not available on this server.`);
    return plugin.build(parsePluginConfig(plugin, config.config) as never);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return () => {
      throw new Error(`The config cannot run: ${message}`);
    };
  }
}

/**
 * The chain of a project's configs. Each event goes through every step before the next
 * event starts, so the copies steps make die young; counters are taken once per call (ingestion
 * hands a request over in chunks of 500, letting other requests in between).
 * A step that throws counts an error and passes the event on unchanged.
 */
function chainOf(configs: { id: number; transform: Transform }[], stats: RunStats): TransformChain {
  return {
    configIds: configs.map((config) => config.id),
    run(events) {
      if (configs.length === 0) return events;
      const now = Date.now();
      const counters = configs.map((config) => stats.counter(config.id, now));
      const kept: IngestEvent[] = [];
      for (const received of events) {
        let event: IngestEvent | null = received;
        for (let i = 0; i < configs.length && event !== null; i++) {
          const counter = counters[i]!;
          counter.seen++;
          try {
            event = configs[i]!.transform(event);
            if (event === null) counter.dropped++;
          } catch (error) {
            counter.errors++;
            counter.lastError = errorMessage(error);
          }
        }
        if (event !== null) kept.push(event);
      }
      return kept;
    },
  };
}

interface CachedChain {
  chain: Promise<TransformChain>;
  until: number;
}

export class TransformationRuntime {
  readonly stats: RunStats;
  private readonly chains = new Map<number, CachedChain>();

  constructor(private readonly db: Database) {
    this.stats = new RunStats(db.sql);
    db.changes.subscribe(TRANSFORMATIONS_TOPIC, (key) => {
      if (key === ALL_KEYS) this.chains.clear();
      else this.invalidate(Number(key));
    });
  }

  /** The hook ingestion calls once per request (`TransformationsFor` of ingestion's contract). */
  readonly transformationsFor: TransformationsFor = (projectId) => {
    const cached = this.chains.get(projectId);
    if (cached && cached.until > Date.now()) return cached.chain;
    return this.load(projectId);
  };

  private load(projectId: number): Promise<TransformChain> {
    const chain = loadChainConfigs(this.db.sql, projectId).then((configs) =>
      chainOf(configs.map((config) => ({ id: config.id, transform: buildTransform(config) })), this.stats),
    );
    // Concurrent requests share one load (an invalidation removes it, loading or not); a
    // failed load is not kept.
    const entry: CachedChain = { chain, until: Date.now() + CHAIN_TTL_MS };
    this.chains.set(projectId, entry);
    chain.catch(() => {
      if (this.chains.get(projectId) === entry) this.chains.delete(projectId);
    });
    return chain;
  }

  /** Drops a project's chain: its next request loads it anew. */
  invalidate(projectId: number): void {
    this.chains.delete(projectId);
  }
}

// One runtime per database and process, shared by the server's modules and Next's bundle
// (modules load twice): a config written through Next must invalidate the chain the
// server's capture path uses.
export const transformationRuntime = perDatabase((db: Database) => new TransformationRuntime(db), "burrow.transformationRuntime");

/**
 * After a write to a project's configs has committed: every node (this one at once) loads
 * the project's chain anew for its next request.
 */
export async function publishConfigChange(db: Database, projectId: number): Promise<void> {
  await db.changes.publish(TRANSFORMATIONS_TOPIC, String(projectId));
}

/** What ingestion passes to `ingestDecoded`: the project's chain of enabled configs. */
export function transformationsFor(db: Database): TransformationsFor {
  return transformationRuntime(db).transformationsFor;
}
