/** For tests of transformation plugins: an ingested event, frozen so a transform that changes its input throws. */
import type { IngestEvent } from "@/server/ingestion/contract";
import type { TransformationPlugin } from "@/server/transformations/plugin";

export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

export function ingestEvent(overrides: Partial<IngestEvent> = {}): IngestEvent {
  return deepFreeze({
    uuid: "0190f1c2-0000-7000-8000-000000000001",
    event: "$pageview",
    distinctId: "user-1",
    properties: {},
    timestamp: new Date("2026-01-02T03:04:05.000Z"),
    historicalMigration: false,
    ...overrides,
  });
}

/** Runs `plugin` with `config` (parsed as the service stores it) on `event`. */
export function runPlugin(plugin: TransformationPlugin, config: Record<string, unknown>, event: IngestEvent): IngestEvent | null {
  return plugin.build(plugin.config.parse(config) as never)(event);
}
