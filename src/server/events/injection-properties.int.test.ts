/**
 * The injection corpus (src/test-support/injection.ts) in the `properties` parameter: as property
 * keys and values, under every operator, for event and person properties, and as the raw
 * parameter. Each answer is a 400 or exactly the events the in-memory matcher accepts;
 * never a 500; the tables are unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testStoresName } from "@/test-support/db";
import { propertiesParamSchema } from "@/server/properties/contract";
import { matchesProperties } from "@/server/properties/match";
import { CORPUS, expectEvents, expectHandled, injectionFixture, type InjectionFixture } from "@/test-support/injection";

let fx: InjectionFixture;
let before: unknown;

beforeAll(async () => {
  fx = await injectionFixture();
  before = await fx.snapshot();
});

afterAll(async () => {
  await fx.close();
});

const OPERATORS = ["exact", "is_not", "icontains", "not_icontains", "regex", "not_regex", "gt", "lte", "is_set", "is_not_set", "is_date_before"];

describe(`injection corpus in properties (${testStoresName})`, () => {
  it.each(CORPUS.map((text) => [JSON.stringify(text).slice(0, 40), text]))("%s: the matcher's answer or a 400, for every operator", async (_label, text) => {
    const filters = [
      ...OPERATORS.map((operator) => ({ key: text, value: text, operator, type: "event" })),
      ...["exact", "icontains", "regex", "gt", "is_date_before"].map((operator) => ({ key: "label", value: text, operator, type: "event" })),
      { key: text, value: [text, "x"], operator: "exact", type: "event" },
      ...["not_icontains", "regex"].map((operator) => ({ key: text, value: text, operator, type: "person" })),
    ];
    for (const filter of filters) {
      const label = `properties=${JSON.stringify(filter)}`;
      const answer = await fx.list({ properties: JSON.stringify([filter]) });
      expectHandled(answer, label);
      if (answer.status === 200) {
        const group = propertiesParamSchema.parse([filter]);
        expectEvents(answer, fx.stored.filter((e) => matchesProperties(group, { event: e.properties, person: e.person })), label);
      }
    }
    // The parameter itself hostile (not JSON, or JSON of the wrong shape).
    expect((await fx.list({ properties: text })).body, `properties raw ${JSON.stringify(text)}`).toMatchObject({ attr: "properties" });
    expect((await fx.list({ properties: JSON.stringify(text) })).body).toMatchObject({ attr: "properties" });
    expect((await fx.list({ properties: JSON.stringify({ [text]: text }) })).body).toMatchObject({ attr: "properties" });
  });

  it("a hostile key is found as the key it is (never read as SQL)", async () => {
    for (const text of CORPUS) {
      const answer = await fx.list({ properties: JSON.stringify([{ key: text, operator: "is_set" }]) });
      expect(answer.status).toBe(200);
      expect(answer.body.results.length, JSON.stringify(text)).toBeGreaterThan(0);
    }
  });

  it("leaves every table as it was", async () => {
    expect(await fx.snapshot()).toEqual(before);
  });
});
