/**
 * ExperimentQuery on a dataset whose answer is known: 600 users bucketed by the experiment's
 * flag with PostHog's hash (flags/evaluation.ts, the function /flags answers with), each
 * exposed through a `$feature_flag_called` event carrying the variant the flag gives them, a
 * holdout taking 10 % of them; conversions and purchase amounts on a fixed rule. Checked
 * against counts made here from the hash itself, on PGlite, PostgreSQL and ClickHouse.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import type { StoredEventInput } from "@/server/db/events";
import { evaluateFlag, type FlagDefinition } from "@/server/flags/evaluation";
import { clearQueryCache, computeQuery } from "@/server/query/service";
import { createTestDatabase, testDbKind, testEventStoreKind, testStoresName } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";
import { experimentMetrics } from "./present";
import { bayesianCompare, frequentistCompare, type VariantStats } from "./statistics";

let db: Database;
let projectId: number;
let apiKey: string;
let experimentId: number;
let firstSeenId: number;
let holdoutId: number;
const list = restRoute("projects", "experiments");
const holdouts = restRoute("projects", "experiment_holdouts");

const START = Date.parse("2026-03-01T00:00:00Z");
const HOUR = 3_600_000;
const USERS = 600;
/** Per variant (and the holdout): exposed users, converted users (purchase after exposure), purchase sums and sums of squares. */
const expected = new Map<string, { n: number; converted: number; sum: number; squares: number; browsed: number; both: number }>();

async function post(handler: (request: Request, route: { params: Promise<unknown> }) => Promise<Response>, path: string, body: unknown) {
  const response = await handler(
    new Request(`http://localhost/api/projects/${projectId}/${path}`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify(body) }),
    { params: Promise.resolve({ project_id: String(projectId) }) },
  );
  const json = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(201);
  return json;
}

const event = (distinctId: string, name: string, at: number, properties: Record<string, unknown>): StoredEventInput => ({ uuid: uuidv7(), projectId, event: name, distinctId, properties, timestamp: new Date(at) });

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "results@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  holdoutId = (await post(holdouts.POST, "experiment_holdouts/", { name: "Ten", filters: [{ properties: [], rollout_percentage: 10 }] })).id;
  const experiment = await post(list.POST, "experiments/", {
    name: "Checkout",
    feature_flag_key: "checkout",
    holdout_id: holdoutId,
    start_date: new Date(START).toISOString(),
    parameters: { feature_flag_variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 30 }, { key: "fast", rollout_percentage: 20 }] },
  });
  experimentId = experiment.id;
  firstSeenId = (await post(list.POST, "experiments/", { name: "First seen", feature_flag_key: "checkout", start_date: new Date(START).toISOString(), exposure_criteria: { multiple_variant_handling: "first_seen" } })).id;
  const flag: FlagDefinition = { id: experiment.feature_flag.id, key: "checkout", active: true, filters: experiment.feature_flag.filters };

  const events: StoredEventInput[] = [];
  for (let i = 0; i < USERS; i++) {
    const id = `user-${i}`;
    const variant = evaluateFlag(flag, { distinctId: id, personProperties: {} }).variant!;
    const exposedAt = START + (i % 48) * HOUR;
    // Exposed twice (the SDK reports each call): one person, one exposure
    events.push(event(id, "$feature_flag_called", exposedAt, { $feature_flag: "checkout", $feature_flag_response: variant }));
    events.push(event(id, "$feature_flag_called", exposedAt + HOUR, { $feature_flag: "checkout", $feature_flag_response: variant }));
    const row = expected.get(variant) ?? { n: 0, converted: 0, sum: 0, squares: 0, browsed: 0, both: 0 };
    row.n++;
    // A purchase before the exposure never counts
    if (i % 7 === 0) events.push(event(id, "purchase", exposedAt - HOUR, { amount: 1000 }));
    // The rule: test converts more (i % 3), control and fast on i % 5; a browse step first for half of them
    const converts = variant === "test" ? i % 3 === 0 : i % 5 === 0;
    const browses = i % 2 === 0;
    if (browses) {
      events.push(event(id, "browse", exposedAt + 2 * HOUR, {}));
      row.browsed++;
    }
    if (converts) {
      const amount = (i % 10) + 1;
      events.push(event(id, "purchase", exposedAt + 3 * HOUR, { amount }));
      // A second purchase for every fourth buyer: the mean sums per person
      const second = i % 4 === 0 ? 5 : 0;
      if (second) events.push(event(id, "purchase", exposedAt + 4 * HOUR, { amount: second }));
      row.converted++;
      if (browses) row.both++;
      row.sum += amount + second;
      row.squares += (amount + second) ** 2;
    }
    expected.set(variant, row);
  }
  // Someone who saw control and then test: $multiple under `exclude`, control under `first_seen`
  events.push(event("switcher", "$feature_flag_called", START + HOUR, { $feature_flag: "checkout", $feature_flag_response: "control" }));
  events.push(event("switcher", "$feature_flag_called", START + 2 * HOUR, { $feature_flag: "checkout", $feature_flag_response: "test" }));
  events.push(event("switcher", "purchase", START + 3 * HOUR, { amount: 50 }));
  // Before the experiment started, and another flag's exposure: not counted
  events.push(event("early", "$feature_flag_called", START - 5 * HOUR, { $feature_flag: "checkout", $feature_flag_response: "control" }));
  events.push(event("other", "$feature_flag_called", START + HOUR, { $feature_flag: "other-flag", $feature_flag_response: "control" }));
  await db.events.insert(events);
});
afterAll(() => closeDb());

const FUNNEL = { kind: "ExperimentMetric", metric_type: "funnel", series: [{ kind: "EventsNode", event: "purchase" }] };
const MEAN = { kind: "ExperimentMetric", metric_type: "mean", source: { kind: "EventsNode", event: "purchase", math: "sum", math_property: "amount" } };
const now = new Date(START + 30 * 24 * HOUR);

async function run(metric: unknown, id = experimentId) {
  clearQueryCache(db);
  const computed = await computeQuery(db, projectId, { kind: "ExperimentQuery", experiment_id: id, metric }, { now });
  return computed.answer!.extra as Record<string, any>;
}

describe(`ExperimentQuery (${testStoresName})`, () => {
  it("counts each variant's exposures as PostHog's hash assigns them; the holdout and the switcher are left out", async () => {
    const answer = await run(FUNNEL);
    expect(expected.get(`holdout-${holdoutId}`)?.n ?? 0).toBeGreaterThan(30);
    expect(answer.exposures).toEqual({ control: expected.get("control")!.n, test: expected.get("test")!.n, fast: expected.get("fast")!.n, $multiple: 1 });
    expect(answer.baseline).toMatchObject({ key: "control", number_of_samples: expected.get("control")!.n, sum: expected.get("control")!.converted, validation_failures: [] });
    expect(answer.variant_results.map((v: { key: string }) => v.key)).toEqual(["test", "fast"]);
    expect(answer.variant_results[0]).toMatchObject({ key: "test", number_of_samples: expected.get("test")!.n, sum: expected.get("test")!.converted, method: "bayesian" });
    expect(answer.srm.mismatch).toBe(false);
  });

  it("gives the Bayesian chance to win and interval of those counts; significant where test converts more", async () => {
    const answer = await run(FUNNEL);
    const stats = (key: string): VariantStats => ({ key, number_of_samples: expected.get(key)!.n, sum: expected.get(key)!.converted, sum_squares: expected.get(key)!.converted });
    const want = bayesianCompare("funnel", stats("test"), stats("control"));
    expect(answer.variant_results[0].chance_to_win).toBeCloseTo(want.chance_to_win, 12);
    expect(answer.variant_results[0].credible_interval[0]).toBeCloseTo(want.credible_interval[0], 12);
    expect(answer.variant_results[0].chance_to_win).toBeGreaterThan(0.95);
    expect(answer.variant_results[0].significant).toBe(true);
  });

  it("walks a two-step funnel in order, with step counts", async () => {
    const answer = await run({ ...FUNNEL, series: [{ kind: "EventsNode", event: "browse" }, { kind: "EventsNode", event: "purchase" }] });
    const control = expected.get("control")!;
    expect(answer.baseline.step_counts[0]).toBe(control.n);
    expect(answer.baseline.step_counts[1]).toBe(control.browsed);
    // converted after browsing: the converters who browsed first
    expect(answer.baseline.step_counts[2]).toBe(control.both);
    expect(answer.baseline.sum).toBe(control.both);
    expect(answer.variant_results[0].sum).toBe(expected.get("test")!.both);
  });

  it("sums a mean metric per person, from the exposure on", async () => {
    const answer = await run(MEAN);
    for (const row of [answer.baseline, ...answer.variant_results]) {
      const want = expected.get(row.key)!;
      expect([row.key, row.number_of_samples, row.sum, row.sum_squares]).toEqual([row.key, want.n, want.sum, want.squares]);
    }
  });

  // The tally's planner settings (SET LOCAL in its own transaction) must not outlive it on the one embedded connection.
  it.runIf(testDbKind === "pglite" && testEventStoreKind === "postgres")("leaves the connection's planner settings as they were", async () => {
    const settings = () => db.sql.query<{ sort: string; memory: string }>("SELECT current_setting('enable_sort') AS sort, current_setting('work_mem') AS memory");
    const before = await settings();
    await run(MEAN);
    expect(await settings()).toEqual(before);
    expect(before[0]!.sort).toBe("on");
  });

  it("frequentist when the experiment says so", async () => {
    const patch = restRoute("projects", "experiments/:id").PATCH;
    const response = await patch(
      new Request(`http://localhost/api/projects/${projectId}/experiments/${experimentId}/`, { method: "PATCH", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ stats_config: { method: "frequentist" } }) }),
      { params: Promise.resolve({ project_id: String(projectId), id: String(experimentId) }) },
    );
    expect(response.status).toBe(200);
    const answer = await run(MEAN);
    const stats = (key: string): VariantStats => ({ key, number_of_samples: expected.get(key)!.n, sum: expected.get(key)!.sum, sum_squares: expected.get(key)!.squares });
    const want = frequentistCompare("mean", stats("fast"), stats("control"));
    expect(answer.variant_results[1]).toMatchObject({ key: "fast", method: "frequentist" });
    expect(answer.variant_results[1].p_value).toBeCloseTo(want.p_value, 12);
    expect(answer.variant_results[1].confidence_interval[1]).toBeCloseTo(want.confidence_interval[1], 12);
  });

  it("first_seen keeps a person exposed to two variants in the first", async () => {
    const answer = await run(FUNNEL, firstSeenId);
    // That experiment has no holdout in its definition, but shares the flag: the holdout exposures stay out as unknown variants
    expect(answer.exposures.control).toBe(expected.get("control")!.n + 1);
    expect(answer.exposures.$multiple).toBe(0);
  });

  it("answers a shared metric linked to the experiment as the same metric inline", async () => {
    const saved = await post(restRoute("projects", "experiment_saved_metrics").POST, "experiment_saved_metrics/", { name: "Revenue", query: MEAN });
    const patch = restRoute("projects", "experiments/:id").PATCH;
    const response = await patch(
      new Request(`http://localhost/api/projects/${projectId}/experiments/${experimentId}/`, { method: "PATCH", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ saved_metrics_ids: [{ id: saved.id, metadata: { type: "secondary" } }] }) }),
      { params: Promise.resolve({ project_id: String(projectId), id: String(experimentId) }) },
    );
    const experiment = await response.json();
    const [shared] = experimentMetrics(experiment, true);
    expect(shared).toMatchObject({ isSharedMetric: true, sharedMetricId: saved.id });
    const answer = await run(shared);
    for (const row of [answer.baseline, ...answer.variant_results]) expect([row.key, row.number_of_samples, row.sum]).toEqual([row.key, expected.get(row.key)!.n, expected.get(row.key)!.sum]);
  });

  it("says not enough exposures below 50, and refuses an unknown experiment", async () => {
    const small = await post(list.POST, "experiments/", { name: "Small", feature_flag_key: "small", start_date: new Date(START).toISOString() });
    await db.events.insert(
      Array.from({ length: 30 }, (_, i) => event(`small-${i}`, "$feature_flag_called", START + HOUR, { $feature_flag: "small", $feature_flag_response: i % 2 ? "test" : "control" })),
    );
    const answer = await run(FUNNEL, small.id);
    expect(answer.baseline.validation_failures).toContain("not-enough-exposures");
    expect(answer.variant_results[0]).toMatchObject({ number_of_samples: 15, chance_to_win: null, credible_interval: null, significant: null });
    expect(answer.variant_results[0].validation_failures).toContain("not-enough-exposures");
    await expect(run(FUNNEL, 999999)).rejects.toThrow(/does not exist/);
  });

  it("refuses hostile ExperimentQuery input over the query route with a 4xx: huge ids, another project's experiment, NUL bytes, a key without the scope", async () => {
    // (A body over 1 MB is refused by the server before any route: src/server/http/next-body-limit.ts.)
    const query = restRoute("projects", "query").POST;
    const ask = async (body: string, key = apiKey) => {
      const response = await query(
        new Request(`http://localhost/api/projects/${projectId}/query/`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body }),
        { params: Promise.resolve({ project_id: String(projectId) }) },
      );
      return { status: response.status, text: await response.text() };
    };
    const experimentQuery = (extra: Record<string, unknown>) => JSON.stringify({ query: { kind: "ExperimentQuery", experiment_id: experimentId, metric: FUNNEL, ...extra }, refresh: "force_blocking" });
    const other = await bootstrap(db.prisma, { email: "elsewhere@example.com", password: "pw12345678", organization: "Elsewhere" });
    const theirFlag = await db.prisma.featureFlag.create({ data: { projectId: other.project_id, key: "theirs", filters: { groups: [{ properties: [], rollout_percentage: 100 }] } } });
    const theirs = await db.prisma.experiment.create({ data: { projectId: other.project_id, name: "Theirs", featureFlagId: theirFlag.id, parameters: {}, createdById: other.user.id } });
    const { key: unscoped } = await createPersonalApiKey(db.prisma, (await db.prisma.user.findFirstOrThrow({ where: { email: "results@example.com" } })).id, { scopes: ["experiment:read"] });
    const cases: [string, () => Promise<{ status: number; text: string }>, number][] = [
      ["an id of 2^40", () => ask(experimentQuery({ experiment_id: 2 ** 40 })), 400],
      ["an id as text", () => ask(experimentQuery({ experiment_id: "1 OR 1=1" })), 400],
      ["another project's experiment", () => ask(experimentQuery({ experiment_id: theirs.id })), 400],
      ["a NUL byte in the metric's event", () => ask(experimentQuery({ metric: { ...FUNNEL, series: [{ kind: "EventsNode", event: "pur\u0000chase" }] } })), 400],
      ["a key without query:read", () => ask(experimentQuery({}), unscoped), 403],
    ];
    for (const [what, send, status] of cases) {
      const answer = await send();
      expect([what, answer.status], answer.text.slice(0, 300)).toEqual([what, status]);
    }
    // Nothing of the other project's experiment shows in the refusal.
    expect((await ask(experimentQuery({ experiment_id: theirs.id }))).text).not.toContain("Theirs");
  });

  it("is not answered from the cache once the experiment changed (its settings are not in the query)", async () => {
    const query = { kind: "ExperimentQuery", experiment_id: experimentId, metric: MEAN };
    clearQueryCache(db);
    const before = await computeQuery(db, projectId, query, { now });
    expect((await computeQuery(db, projectId, query, { now })).cached).toBe(true);
    const method = (before.answer!.extra as Record<string, any>).variant_results[0].method;
    const other = method === "frequentist" ? "bayesian" : "frequentist";
    const patch = restRoute("projects", "experiments/:id").PATCH;
    const response = await patch(
      new Request(`http://localhost/api/projects/${projectId}/experiments/${experimentId}/`, { method: "PATCH", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ stats_config: { method: other } }) }),
      { params: Promise.resolve({ project_id: String(projectId), id: String(experimentId) }) },
    );
    expect(response.status).toBe(200);
    const after = await computeQuery(db, projectId, query, { now });
    expect(after.cached).toBe(false);
    expect((after.answer!.extra as Record<string, any>).variant_results[0].method).toBe(other);
  });
});

/**
 * The counting rules the stores apply (db/events/experiment-tally/query.ts), on a handful of
 * users of another flag whose every number is written out here.
 */
describe(`ExperimentQuery's counting rules (${testStoresName})`, () => {
  let rulesId: number;
  let rulesFirstSeenId: number;
  const T = START + 24 * HOUR;
  const exposure = (distinctId: string, variant: string, at: number, personId?: string): StoredEventInput => ({
    ...event(distinctId, "$feature_flag_called", at, { $feature_flag: "rules", $feature_flag_response: variant }),
    ...(personId ? { personId } : {}),
  });

  beforeAll(async () => {
    rulesId = (await post(list.POST, "experiments/", { name: "Rules", feature_flag_key: "rules", start_date: new Date(START).toISOString() })).id;
    rulesFirstSeenId = (await post(list.POST, "experiments/", { name: "Rules first seen", feature_flag_key: "rules", start_date: new Date(START).toISOString(), exposure_criteria: { multiple_variant_handling: "first_seen" } })).id;
    const person = "0191c3a2-0000-7000-8000-000000000001";
    await db.events.insert([
      // r1 (control): a numeric string and a JSON number, one hour and thirty hours after the exposure
      exposure("r1", "control", T),
      event("r1", "purchase", T + HOUR, { amount: "12" }),
      event("r1", "purchase", T + 30 * HOUR, { amount: 3 }),
      // r2 (control): a purchase at the exposure's very instant, its amount no number
      exposure("r2", "control", T),
      event("r2", "purchase", T, { amount: "abc" }),
      // r3 (test): a purchase before the exposure (never counts); browse and purchase at one instant after it
      event("r3", "purchase", T + HOUR, { amount: 100 }),
      exposure("r3", "test", T + 2 * HOUR),
      event("r3", "browse", T + 3 * HOUR, {}),
      event("r3", "purchase", T + 3 * HOUR, { amount: 4.5 }),
      // r4 (test): purchase, then browse
      exposure("r4", "test", T),
      event("r4", "purchase", T + HOUR, { amount: "1e1" }),
      event("r4", "browse", T + 2 * HOUR, {}),
      // One person under two distinct ids, shown control on one and test on the other: $multiple (or control when first seen)
      exposure("p-a", "control", T, person),
      exposure("p-b", "test", T + HOUR, person),
      { ...event("p-b", "purchase", T + 2 * HOUR, { amount: 7 }), personId: person },
    ]);
  });

  const counts = (answer: Record<string, any>) =>
    Object.fromEntries([answer.baseline, ...answer.variant_results].map((row) => [row.key, { n: row.number_of_samples, sum: row.sum, squares: row.sum_squares, ...(row.step_counts ? { steps: row.step_counts } : {}) }]));
  const PURCHASE = { kind: "EventsNode", event: "purchase" };
  const BROWSE = { kind: "EventsNode", event: "browse" };

  it("groups a person's distinct ids: shown two variants, $multiple; first_seen keeps the first", async () => {
    const excluded = await run(FUNNEL, rulesId);
    expect(excluded.exposures).toEqual({ control: 2, test: 2, $multiple: 1 });
    const firstSeen = await run(FUNNEL, rulesFirstSeenId);
    expect(firstSeen.exposures).toEqual({ control: 3, test: 2, $multiple: 0 });
    // The person's purchase came after the first exposure: converted in control
    expect(counts(firstSeen).control).toMatchObject({ n: 3, sum: 3 });
  });

  it("first_seen: two variants first shown at one instant keep the first in text order, not in the flag's", async () => {
    const variants = [
      { key: "control", rollout_percentage: 34 },
      { key: "test", rollout_percentage: 33 },
      { key: "fast", rollout_percentage: 33 },
    ];
    const exposure_criteria = { multiple_variant_handling: "first_seen" };
    const id = (await post(list.POST, "experiments/", { name: "Ties", feature_flag_key: "ties", start_date: new Date(START).toISOString(), parameters: { feature_flag_variants: variants }, exposure_criteria })).id;
    const shown = (distinctId: string, variant: string, at: number) => event(distinctId, "$feature_flag_called", at, { $feature_flag: "ties", $feature_flag_response: variant });
    await db.events.insert([
      // t1: test and fast at one instant: fast ("fast" < "test"), though test comes first in the flag
      shown("t1", "test", T),
      shown("t1", "fast", T),
      // t2: test, then fast an hour later: test
      shown("t2", "test", T),
      shown("t2", "fast", T + HOUR),
      shown("t3", "control", T + HOUR),
    ]);
    expect((await run(FUNNEL, id)).exposures).toEqual({ control: 1, test: 1, fast: 1, $multiple: 0 });
  });

  it("counts events per person from the exposure's instant on (total), within the conversion window when one is set", async () => {
    const total = { kind: "ExperimentMetric", metric_type: "mean", source: { ...PURCHASE, math: "total" } };
    expect(counts(await run(total, rulesId))).toEqual({ control: { n: 2, sum: 3, squares: 5 }, test: { n: 2, sum: 2, squares: 2 } });
    const windowed = await run({ ...total, conversion_window: 2, conversion_window_unit: "hour" }, rulesId);
    // r1's purchase thirty hours on is past the window
    expect(counts(windowed)).toEqual({ control: { n: 2, sum: 2, squares: 2 }, test: { n: 2, sum: 2, squares: 2 } });
  });

  it("sums JSON numbers and numeric strings; other values add nothing", async () => {
    const sum = { kind: "ExperimentMetric", metric_type: "mean", source: { ...PURCHASE, math: "sum", math_property: "amount" } };
    expect(counts(await run(sum, rulesId))).toEqual({ control: { n: 2, sum: 15, squares: 225 }, test: { n: 2, sum: 14.5, squares: 4.5 ** 2 + 100 } });
    // Within two hours of the exposure: r1's 3, thirty hours on, is left out
    const windowed = await run({ ...sum, conversion_window: 2, conversion_window_unit: "hour" }, rulesId);
    expect(counts(windowed)).toEqual({ control: { n: 2, sum: 12, squares: 144 }, test: { n: 2, sum: 14.5, squares: 4.5 ** 2 + 100 } });
  });

  it("walks ordered steps strictly later than the previous one; unordered counts the steps seen", async () => {
    const ordered = await run({ ...FUNNEL, series: [BROWSE, PURCHASE] }, rulesId);
    // r3's purchase is at its browse's instant, r4 bought before browsing: neither completes
    expect(counts(ordered)).toEqual({ control: { n: 2, sum: 0, squares: 0, steps: [2, 0, 0] }, test: { n: 2, sum: 0, squares: 0, steps: [2, 2, 0] } });
    const unordered = await run({ ...FUNNEL, series: [BROWSE, PURCHASE], funnel_order_type: "unordered" }, rulesId);
    expect(counts(unordered)).toEqual({ control: { n: 2, sum: 0, squares: 0, steps: [2, 2, 0] }, test: { n: 2, sum: 2, squares: 2, steps: [2, 2, 2] } });
    // Two purchase steps need two purchases: only r1 has them
    const twice = await run({ ...FUNNEL, series: [PURCHASE, PURCHASE] }, rulesId);
    expect(counts(twice)).toEqual({ control: { n: 2, sum: 1, squares: 1, steps: [2, 2, 1] }, test: { n: 2, sum: 0, squares: 0, steps: [2, 2, 0] } });
    // With a window of two hours r1's second purchase is too late
    const windowed = await run({ ...FUNNEL, series: [PURCHASE, PURCHASE], conversion_window: 2, conversion_window_unit: "hour" }, rulesId);
    expect(counts(windowed).control).toEqual({ n: 2, sum: 0, squares: 0, steps: [2, 2, 0] });
  });

  it("reads an ActionsNode step or source as the action's events: worked by hand", async () => {
    // The action: any browse, or a purchase whose amount is "abc" (r2's, at its exposure's instant)
    const action = (await post(restRoute("projects", "actions").POST, "actions/", { name: "Browse or odd purchase", steps: [{ event: "browse" }, { event: "purchase", properties: [{ key: "amount", value: ["abc"], operator: "exact", type: "event" }] }] })).id;
    const ACTION = { kind: "ActionsNode", id: action };
    // Per actor from the exposure on: r1 none, r2 one (its odd purchase), r3 one browse, r4 one browse
    const total = await run({ kind: "ExperimentMetric", metric_type: "mean", source: { ...ACTION, math: "total" } }, rulesId);
    expect(counts(total)).toEqual({ control: { n: 2, sum: 1, squares: 1 }, test: { n: 2, sum: 2, squares: 2 } });
    // The node's own properties are ANDed to the action's steps: only r2's purchase has an amount
    const narrowed = await run({ kind: "ExperimentMetric", metric_type: "mean", source: { ...ACTION, math: "total", properties: [{ key: "amount", operator: "is_set", type: "event" }] } }, rulesId);
    expect(counts(narrowed)).toEqual({ control: { n: 2, sum: 1, squares: 1 }, test: { n: 2, sum: 0, squares: 0 } });
    // Purchase, then the action strictly later: only r4 (purchase, then browse an hour on); r3's browse shares its purchase's instant
    const funnel = await run({ ...FUNNEL, series: [PURCHASE, ACTION] }, rulesId);
    expect(counts(funnel)).toEqual({ control: { n: 2, sum: 0, squares: 0, steps: [2, 2, 0] }, test: { n: 2, sum: 1, squares: 1, steps: [2, 2, 1] } });
    // Saved on an experiment, the metric reads the same; an unknown action is refused by the query
    const saved = await post(list.POST, "experiments/", { name: "Rules by action", feature_flag_key: "rules", start_date: new Date(START).toISOString(), metrics: [{ kind: "ExperimentMetric", metric_type: "funnel", series: [PURCHASE, ACTION] }] });
    expect(saved.metrics[0].series[1]).toMatchObject({ kind: "ActionsNode", id: action });
    expect(counts(await run(saved.metrics[0], saved.id))).toEqual(counts(funnel));
    await expect(run({ ...FUNNEL, series: [{ kind: "ActionsNode", id: 987654 }] }, rulesId)).rejects.toThrow(/Action 987654 does not exist/);
  });

  it("exposes through an action (PostHog's exposure_config ActionsNode): its events carrying `$feature/<key>`", async () => {
    const action = (await post(restRoute("projects", "actions").POST, "actions/", { name: "Saw pricing", steps: [{ event: "$pageview", url: "/pricing", url_matching: "contains" }] })).id;
    const id = (await post(list.POST, "experiments/", { name: "Pricing", feature_flag_key: "pricing", start_date: new Date(START).toISOString(), exposure_criteria: { exposure_config: { kind: "ActionsNode", id: action } } })).id;
    const view = (distinctId: string, url: string, variant: string, at: number) => event(distinctId, "$pageview", at, { $current_url: `https://shop.test${url}`, "$feature/pricing": variant });
    await db.events.insert([
      // v1 control and v3 test see the pricing page; v2's home page view is no exposure
      view("v1", "/pricing", "control", T),
      view("v2", "/home", "test", T),
      view("v3", "/pricing?plan=pro", "test", T),
      event("v2", "checkout", T + HOUR, {}),
      event("v3", "checkout", T + HOUR, {}),
    ]);
    const answer = await run({ ...FUNNEL, series: [{ kind: "EventsNode", event: "checkout" }] }, id);
    expect(answer.exposures).toEqual({ control: 1, test: 1, $multiple: 0 });
    expect(counts(answer)).toEqual({ control: { n: 1, sum: 0, squares: 0, steps: [1, 0] }, test: { n: 1, sum: 1, squares: 1, steps: [1, 1] } });
  });

  it("filters test accounts out of exposures and metric events with the project's test_account_filters when the experiment asks", async () => {
    // PATCH /api/projects/:id/ (PostHog's team field): here, events whose variant is test are "test accounts"
    const project = restRoute("projects", "").PATCH;
    const filters = [{ key: "$feature_flag_response", value: ["test"], operator: "is_not", type: "event" }];
    const patched = await project(
      new Request(`http://localhost/api/projects/${projectId}/`, { method: "PATCH", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ test_account_filters: filters }) }),
      { params: Promise.resolve({ project_id: String(projectId) }) },
    );
    expect(patched.status).toBe(200);
    expect((await patched.json()).test_account_filters).toEqual(filters);
    const filtered = (await post(list.POST, "experiments/", { name: "Rules without test accounts", feature_flag_key: "rules", start_date: new Date(START).toISOString(), exposure_criteria: { filterTestAccounts: true } })).id;
    // The test exposures are gone: r1, r2 and the person (p-a; its test exposure on p-b is filtered) are control;
    // purchases have no variant property, so they pass: r1's, r2's at its exposure's instant, and the person's on p-b
    const answer = await run(FUNNEL, filtered);
    expect(answer.exposures).toEqual({ control: 3, test: 0, $multiple: 0 });
    expect(counts(answer).control).toMatchObject({ n: 3, sum: 3 });
    // The same experiment without the flag set reads every exposure
    expect((await run(FUNNEL, rulesId)).exposures).toEqual({ control: 2, test: 2, $multiple: 1 });
  });
});
