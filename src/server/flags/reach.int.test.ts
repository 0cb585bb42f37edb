/**
 * "Will match about X% of users" and "Test for a user"'s why, over a real database: the
 * reach reads the project's persons (properties and cohort memberships) and nobody else's;
 * the test names the condition set that decided and the person's bucket against its rollout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { testContext } from "@/test-support/context";
import type { Context } from "@/server/context";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { createFlagInput, flagFiltersSchema } from "./contract";
import { flagHash } from "./evaluation";
import { createFlag, flagReach, testFlagForUser } from "./service";

let db: Database;
let ctx: Context;
let cohortId: number;

async function addPerson(projectId: number, distinctId: string, properties: Record<string, unknown>): Promise<number> {
  const person = await db.prisma.person.create({ data: { projectId, properties: properties as object } });
  await db.prisma.personDistinctId.create({ data: { projectId, personId: person.id, distinctId } });
  return person.id;
}

const filters = (groups: unknown[]) => flagFiltersSchema.parse({ groups });

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "reach@example.com", password: "pw12345678" });
  ctx = await testContext(db, owner.user.id, owner.project_id);
  const other = await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: "phc_reach_other" } });
  const ids: number[] = [];
  for (let i = 0; i < 10; i++) ids.push(await addPerson(owner.project_id, `p${i}`, { plan: i < 4 ? "pro" : "free", email: `p${i}@${i % 2 === 0 ? "burrow.test" : "example.com"}` }));
  // Another project's persons are not counted.
  for (let i = 0; i < 5; i++) await addPerson(other.id, `o${i}`, { plan: "pro" });
  cohortId = (await db.prisma.cohort.create({ data: { projectId: owner.project_id, name: "Static", isStatic: true, filters: {} } })).id;
  await db.prisma.cohortPerson.createMany({ data: ids.slice(7).map((personId) => ({ cohortId, personId })) });
});

afterAll(async () => {
  await closeDb();
});

describe(`a flag's reach and its test's why (${testStoresName})`, () => {
  it("estimates each condition set and the whole flag from the project's persons", async () => {
    const reach = await flagReach(
      ctx,
      filters([
        { properties: [{ key: "plan", value: ["pro"], operator: "exact", type: "person" }], rollout_percentage: 50 },
        { properties: [{ key: "id", value: cohortId, type: "cohort" }], rollout_percentage: 100 },
      ]),
    );
    expect(reach.total).toBe(10);
    expect(reach.sampled).toBe(10);
    expect(reach.conditions).toEqual([
      { matching: 4, rollout: 50, share: 0.2 },
      { matching: 3, rollout: 100, share: 0.3 },
    ]);
    // 4 pro persons at 0.5, 3 cohort members at 1 (none in both): 5 of 10.
    expect(reach.share).toBeCloseTo(0.5, 10);
    expect(reach.approximate).toBe(true);
  });

  it("serves everyone with PostHog's default condition set, exactly", async () => {
    const reach = await flagReach(ctx, filters([{ properties: [], rollout_percentage: null }]));
    expect(reach).toMatchObject({ total: 10, share: 1, persons: 10, approximate: false });
  });

  it("names the condition set and compares the bucket with its rollout", async () => {
    const flag = await createFlag(
      ctx,
      createFlagInput.parse({
        key: "half-staff",
        filters: {
          groups: [
            { properties: [{ key: "plan", value: ["enterprise"], operator: "exact", type: "person" }], rollout_percentage: 100 },
            { properties: [{ key: "email", value: "@burrow.test", operator: "icontains", type: "person" }], rollout_percentage: 50, description: "Staff" },
          ],
        },
      }),
    );
    // Find one staff person inside the rollout and one outside it.
    const staff = ["p0", "p2", "p4", "p6", "p8"];
    const inside = staff.find((id) => flagHash("half-staff", id) <= 0.5)!;
    const outside = staff.find((id) => flagHash("half-staff", id) > 0.5)!;
    expect(inside && outside).toBeTruthy();

    const out = await testFlagForUser(ctx, flag.id, { distinctId: outside });
    expect(out.result?.reason.code).toBe("out_of_rollout_bound");
    expect(out.why).toMatchObject({ conditionIndex: 1, description: "Staff", bucket: flagHash("half-staff", outside), rollout: 50 });
    expect(out.why!.properties).toEqual([{ key: "email", value: "@burrow.test", operator: "icontains", type: "person" }]);

    const matched = await testFlagForUser(ctx, flag.id, { distinctId: inside });
    expect(matched.result?.reason.code).toBe("condition_match");
    expect(matched.why).toMatchObject({ conditionIndex: 1, rollout: 50 });
    expect(matched.why!.bucket!).toBeLessThanOrEqual(0.5);

    const nobody = await testFlagForUser(ctx, flag.id, { distinctId: "p1" });
    expect(nobody.result?.reason.code).toBe("no_condition_match");
    expect(nobody.why).toBeNull();
  });
});
