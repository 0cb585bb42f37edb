/**
 * The SQL of event matchers (actor-events/query.ts `EventMatcher`: an event name and filter
 * groups) that both stores' per-actor reads write alike: one condition per matcher, and the
 * event-name prefilter the indexes want, in the store's dialect. `filter` compiles a group.
 */
import type { PropertyGroup } from "@/server/properties/contract";
import type { EventMatcher } from "../actor-events/query";
import type { Binder } from "@/server/sql/bind";
import type { SqlDialect } from "@/server/sql/dialect";
import { notTestEvent } from "../test-event";

export interface MatcherSql {
  /** The condition an event satisfies the matcher by (any event but the test event for a matcher of any event). */
  test(matcher: EventMatcher): string;
  /** `e.event` one of the matchers' names; none when a matcher takes any event. */
  eventNames(matchers: readonly EventMatcher[]): string[];
  /** An event satisfies at least one of the matchers' `tests` ("false" for none). */
  any(tests: readonly string[]): string;
  /** The event's mask: bit i set when it satisfies `tests[i]`. */
  mask(tests: readonly string[]): string;
}

export function matcherSql(dialect: SqlDialect, params: Binder, filter: (group: PropertyGroup) => string): MatcherSql {
  return {
    any: (tests) => (tests.length === 0 ? "false" : `(${tests.map((test) => `(${test})`).join(" OR ")})`),
    mask: (tests) => (tests.length === 0 ? "0" : tests.map((test, i) => dialect.ifElse(test, String(2 ** i), "0")).join(" + ")),
    test(matcher) {
      // Any event is any but the test event (test-event.ts).
      const parts = [matcher.event === null ? notTestEvent() : `e.event = ${params.add(matcher.event, "text")}`, ...matcher.filters.map(filter)];
      return parts.join(" AND ");
    },
    eventNames(matchers) {
      const names = matchers.map((matcher) => matcher.event);
      return names.length > 0 && !names.includes(null) ? [dialect.anyOf("e.event", params.add([...new Set(names)], "text[]"))] : [];
    },
  };
}
