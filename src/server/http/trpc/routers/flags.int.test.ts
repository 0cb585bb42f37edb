/**
 * flags.* over tRPC: the page's operations on the same service as REST, and "test for a
 * user" answered by the flag engine from the stored person (sent through ingestion) and the
 * properties typed into the box.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { createCaller } from "@/server/http/trpc/root";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { flagHash } from "@/server/flags/evaluation";
import { sendBatch } from "@/test-support/ingestion";

let db: Database;
let projectId: number;
let otherOrgProjectId: number;
let api: ReturnType<typeof createCaller>;

async function capture(apiKey: string, batch: Record<string, unknown>[]) {
  await sendBatch(apiKey, batch.map((event) => ({ uuid: randomUUID(), ...event })));
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "flags-ui@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "flags-ui@example.com" } });
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
  otherOrgProjectId = (await bootstrap(db.prisma, { email: "stranger@example.com", password: "pw12345678", organization: "Elsewhere" })).project_id;
  await capture(owner.project_api_key, [
    { event: "$identify", distinct_id: "ada", properties: { $set: { plan: "enterprise", email: "ada@example.com" } } },
    { event: "$identify", distinct_id: "bob", properties: { $set: { plan: "free" } } },
    // The project's first group type, "company" (index 0), as an SDK's group_identify makes it
    { event: "$groupidentify", distinct_id: "ada", properties: { $group_type: "company", $group_key: "globex", $group_set: { tier: "enterprise" } } },
  ]);
});

afterAll(async () => {
  await closeDb();
});

describe(`flags router (${testDbKind})`, () => {
  it("creates, lists, updates, toggles and soft-deletes through the shared service", async () => {
    const flag = await api.flags.create({ projectId, flag: { key: "trpc-flag", name: "Via tRPC", tags: ["UI"] } });
    expect(flag).toMatchObject({ key: "trpc-flag", version: 1, tags: ["ui"], created_by: { email: "flags-ui@example.com" } });
    expect((await api.flags.list({ projectId, search: "trpc" })).results.map((f) => f.key)).toEqual(["trpc-flag"]);
    const updated = await api.flags.update({ projectId, id: flag.id, patch: { active: false, name: "Renamed" } });
    expect(updated).toMatchObject({ active: false, name: "Renamed", version: 2 });
    expect((await api.flags.delete({ projectId, id: flag.id })).deleted).toBe(true);
    expect((await api.flags.list({ projectId, search: "trpc" })).results).toEqual([]);
    // Sorted: writes in the same millisecond share a timestamp.
    expect((await api.flags.activity({ projectId, id: flag.id })).map((entry) => entry.activity).sort()).toEqual(["created", "deleted", "updated"]);
  });

  it("reports validation errors with the field at fault", async () => {
    await expect(
      api.flags.create({ projectId, flag: { key: "bad-variants", filters: { groups: [{}], multivariate: { variants: [{ key: "a", rollout_percentage: 10 }] } } } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    for (const value of ["(a)\\1", "(?=x)"]) {
      const refused = await api.flags
        .create({ projectId, flag: { key: "redos", filters: { groups: [{ properties: [{ key: "name", type: "person", operator: "regex", value }] }] } } })
        .catch((error: unknown) => error);
      expect(refused, value).toMatchObject({
        code: "BAD_REQUEST",
        cause: { issues: [{ message: expect.stringMatching(/^Invalid regular expression/), path: ["flag", "filters", "groups", 0, "properties", 0, "value"] }] },
      });
    }
    const plain = await api.flags.create({ projectId, flag: { key: "regex-later" } });
    await expect(
      api.flags.update({ projectId, id: plain.id, patch: { filters: { groups: [{ properties: [{ key: "name", type: "person", operator: "regex", value: "(a)\\1" }] }] } } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", cause: { attr: "filters__groups__0__properties__0__value", message: expect.stringMatching(/^Invalid regular expression/) } });
    await api.flags.create({ projectId, flag: { key: "dupe" } });
    await expect(api.flags.create({ projectId, flag: { key: "dupe" } })).rejects.toMatchObject({ message: "There is already a feature flag with this key." });
  });

  it("keeps other organizations' projects out", async () => {
    await expect(api.flags.list({ projectId: otherOrgProjectId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const elsewhere = await db.prisma.featureFlag.create({ data: { projectId: otherOrgProjectId, key: "theirs" } });
    await expect(api.flags.get({ projectId, id: elsewhere.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(api.flags.testForUser({ projectId, id: elsewhere.id, distinctId: "ada" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  describe("testForUser", () => {
    let flagId: number;

    beforeAll(async () => {
      const flag = await api.flags.create({
        projectId,
        flag: {
          key: "enterprise-beta",
          filters: {
            groups: [
              { properties: [{ key: "email", type: "person", operator: "icontains", value: "@burrow.test" }], rollout_percentage: 100, variant: "treatment" },
              { properties: [{ key: "plan", type: "person", operator: "exact", value: ["enterprise"] }], rollout_percentage: 100 },
            ],
            multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "treatment", rollout_percentage: 50 }] },
            payloads: { treatment: { banner: true }, control: '"plain"' },
          },
        },
      });
      flagId = flag.id;
    });

    it("answers from the stored person: the matching condition, the hashed variant and its payload", async () => {
      const { result, errorsWhileComputingFlags } = await api.flags.testForUser({ projectId, id: flagId, distinctId: "ada" });
      // Which variant "ada" hashes into, computed independently of the engine's variant code.
      const variant = flagHash("enterprise-beta", "ada", "variant") < 0.5 ? "control" : "treatment";
      expect(errorsWhileComputingFlags).toBe(false);
      expect(result).toEqual({
        key: "enterprise-beta",
        enabled: true,
        variant,
        reason: { code: "condition_match", condition_index: 1, description: "Matched condition set 2" },
        payload: variant === "treatment" ? { banner: true } : "plain",
      });
    });

    it("lets typed properties override the stored ones, and says why nothing matched", async () => {
      const override = await api.flags.testForUser({ projectId, id: flagId, distinctId: "bob", personProperties: { email: "bob@burrow.test" } });
      expect(override.result).toMatchObject({ enabled: true, variant: "treatment", reason: { condition_index: 0, description: "Matched condition set 1" }, payload: { banner: true } });
      const none = await api.flags.testForUser({ projectId, id: flagId, distinctId: "bob" });
      expect(none.result).toMatchObject({ enabled: false, variant: null, reason: { code: "no_condition_match" }, payload: null });
      const stranger = await api.flags.testForUser({ projectId, id: flagId, distinctId: "never-seen", personProperties: { plan: "enterprise" } });
      expect(stranger.result).toMatchObject({ enabled: true, reason: { condition_index: 1 } });
    });

    it("says why this variant: the variant hash against the ranges, a condition set's own variant, and the holdout", async () => {
      const { variant, holdout } = await api.flags.testForUser({ projectId, id: flagId, distinctId: "ada" });
      const hash = flagHash("enterprise-beta", "ada", "variant");
      const expected = hash < 0.5 ? "control" : "treatment";
      expect(holdout).toBeNull();
      expect(variant).toMatchObject({ hash, variant: expected, override: null, ranges: [{ key: "control", from: 0, to: 0.5 }, { key: "treatment", from: 0.5, to: 1 }] });
      expect(variant!.text).toBe(`variant hash ${hash.toFixed(4)} falls in ${expected}'s range ${expected === "control" ? "0.00–0.50" : "0.50–1.00"}`);
      const assigned = await api.flags.testForUser({ projectId, id: flagId, distinctId: "bob", personProperties: { email: "bob@burrow.test" } });
      expect(assigned.variant).toMatchObject({ override: "treatment" });
      const none = await api.flags.testForUser({ projectId, id: flagId, distinctId: "bob" });
      expect(none.variant).toBeNull();
      // A holdout of everyone: held, whatever the hash
      const held = await api.flags.create({ projectId, flag: { key: "held-out", filters: { groups: [{ properties: [], rollout_percentage: 100 }], multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] }, holdout: { id: 3, exclusion_percentage: 100 } } } });
      const answer = await api.flags.testForUser({ projectId, id: held.id, distinctId: "ada" });
      expect(answer.result).toMatchObject({ variant: "holdout-3", reason: { code: "holdout_condition_value" } });
      expect(answer.holdout).toMatchObject({ id: 3, held: true, hash: flagHash("holdout", "ada", "", "-") });
      expect(answer.holdout!.text).toMatch(/^in holdout \(hash 0\.\d{4} ≤ 1\.00\)$/);
      expect(answer.variant).toBeNull();
    });

    it("says why for a flag bucketed by a group: the hashes are of the group key typed, as evaluation's", async () => {
      const flag = await api.flags.create({
        projectId,
        flag: {
          key: "company-beta",
          filters: {
            aggregation_group_type_index: 0,
            groups: [{ properties: [{ key: "tier", type: "group", group_type_index: 0, operator: "exact", value: ["enterprise"] }], rollout_percentage: 100 }],
            multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] },
          },
        },
      });
      expect(await api.flags.testGroupTypes({ projectId, id: flag.id })).toEqual([{ index: 0, name: "company" }]);
      expect(await api.flags.testGroupTypes({ projectId, id: flagId })).toEqual([]);

      // The stored group's tier matches; every hash is of "globex", none of the person's id
      const answer = await api.flags.testForUser({ projectId, id: flag.id, distinctId: "ada", groups: { company: "globex" } });
      const hash = flagHash("company-beta", "globex", "variant");
      const expected = hash < 0.5 ? "control" : "test";
      expect(answer.result).toMatchObject({ enabled: true, variant: expected, reason: { code: "condition_match", condition_index: 0 } });
      expect(answer.bucketedBy).toEqual({ id: "globex", groupType: "company", continuity: false });
      expect(answer.why).toMatchObject({ conditionIndex: 0, bucket: flagHash("company-beta", "globex"), rollout: 100 });
      expect(answer.variant).toMatchObject({ hash, variant: expected });
      // Many keys: the explanation names the variant /decide gives each (typed properties stand in for stored groups)
      for (let i = 0; i < 40; i++) {
        const key = `org-${i}`;
        const each = await api.flags.testForUser({ projectId, id: flag.id, distinctId: "ada", groups: { company: key }, groupProperties: { company: { tier: "enterprise" } } });
        expect([key, each.variant?.variant, each.variant?.hash]).toEqual([key, each.result!.variant, flagHash("company-beta", key, "variant")]);
      }
      // No group given: the flag is off and nothing was hashed
      const none = await api.flags.testForUser({ projectId, id: flag.id, distinctId: "ada" });
      expect(none.result).toMatchObject({ enabled: false, reason: { code: "no_group_type" } });
      expect([none.why, none.bucketedBy, none.variant, none.holdout]).toEqual([null, null, null, null]);
    });

    it("evaluates the saved flag: a disabled flag is off", async () => {
      await api.flags.update({ projectId, id: flagId, patch: { active: false } });
      const { result } = await api.flags.testForUser({ projectId, id: flagId, distinctId: "ada" });
      expect(result).toMatchObject({ enabled: false, reason: { code: "flag_disabled" } });
      await api.flags.update({ projectId, id: flagId, patch: { active: true } });
    });

    it("needs a distinct id", async () => {
      await expect(api.flags.testForUser({ projectId, id: flagId, distinctId: "  " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
  });
});
