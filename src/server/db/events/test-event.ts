/**
 * The event "Send a test event" stores (install/service.ts): a name of its own, so that it
 * shows in the events list and marks the install as working, yet never counts. Analytics
 * reads events by name — $pageview and the others a query names, or /web's view events —
 * except where a query takes any event ("All events" in a series, a funnel step, retention,
 * lifecycle, paths of every event type): those conditions leave it out (trend/build.ts,
 * filters/matchers.ts). It is sent without a person profile, so persons, cohorts and flag
 * reach never see its visitor.
 */
export const TEST_EVENT = "$test_event";

/** The condition "not the test event" on `column` (SQL, either store's dialect). */
export const notTestEvent = (column = "e.event") => `${column} <> '${TEST_EVENT}'`;
