import { describe, expect, it } from "vitest";
import { estimateReach, type ReachPerson } from "./reach";

const person = (properties: Record<string, unknown>, cohorts: number[] = []): ReachPerson => ({ properties, cohorts: new Set(cohorts) });
const persons = [
  person({ plan: "pro", email: "a@burrow.test" }),
  person({ plan: "pro", email: "b@example.com" }, [7]),
  person({ plan: "free", email: "c@burrow.test" }, [7]),
  person({ email: "d@example.com" }),
];
const pro = { key: "plan", value: ["pro"], operator: "exact", type: "person" as const };
const staff = { key: "email", value: "@burrow.test", operator: "icontains", type: "person" as const };

describe("a flag's reach over the project's persons", () => {
  it("is the matching share times the rollout for each set", () => {
    const reach = estimateReach([{ properties: [pro], rollout_percentage: 50 }], { total: 4, persons });
    expect(reach.conditions).toEqual([{ matching: 2, rollout: 50, share: 0.25 }]);
    expect(reach.share).toBe(0.25);
    expect(reach.persons).toBe(1);
    expect(reach.approximate).toBe(true); // 50%: the hash decides which of the two
  });

  it("serves everyone with the default condition (no filters, rollout left out), exactly", () => {
    const reach = estimateReach([{ properties: [], rollout_percentage: null }], { total: 4, persons });
    expect(reach).toMatchObject({ share: 1, persons: 4, approximate: false, conditions: [{ matching: 4, rollout: 100, share: 1 }] });
  });

  it("takes, per person, the largest rollout among the sets they match (one hash buckets them all)", () => {
    // a: pro 20% and staff 60% → 0.6; b: pro → 0.2; c: staff → 0.6; d: none → 0. Mean 1.4 / 4.
    const reach = estimateReach(
      [
        { properties: [pro], rollout_percentage: 20 },
        { properties: [staff], rollout_percentage: 60 },
      ],
      { total: 4, persons },
    );
    expect(reach.conditions.map((c) => c.matching)).toEqual([2, 2]);
    expect(reach.share).toBeCloseTo(0.35, 10);
  });

  it("reads cohort membership, and scales a sample up to the project", () => {
    const reach = estimateReach([{ properties: [{ key: "id", value: 7, operator: "in", type: "cohort" }], rollout_percentage: 100 }], { total: 400, persons });
    expect(reach.conditions[0]!.matching).toBe(2);
    expect(reach.persons).toBe(200);
    expect(reach.approximate).toBe(true); // 4 of 400 read
  });

  it("is 0 (and exact) with no persons or a 0% rollout", () => {
    expect(estimateReach([{ properties: [] }], { total: 0, persons: [] })).toMatchObject({ share: 0, persons: 0, approximate: false });
    expect(estimateReach([{ properties: [], rollout_percentage: 0 }], { total: 4, persons })).toMatchObject({ share: 0, approximate: false });
  });
});
