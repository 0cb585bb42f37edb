import { describe, expect, it } from "vitest";
import { cohortCreateBody } from "@/server/cohorts/contract";
import type { CohortResource } from "@/server/cohorts/present";
import { draftOf, editableInForm, emptyDraft, newCondition, toCohortInput } from "./cohort-draft";

describe("cohort form draft", () => {
  it("builds PostHog's filters for each condition kind, which the API's schema accepts", () => {
    const draft = emptyDraft();
    draft.name = " Buyers ";
    draft.groups[0]!.conditions = [
      { ...newCondition("person"), key: "email", operator: "icontains", value: "@acme.com" },
      { ...newCondition("person"), key: "plan", operator: "exact", value: "pro, team", negation: true },
      { ...newCondition("cohort"), cohortId: "7" },
      { ...newCondition("behavioral"), event: "$pageview", days: "7" },
      { ...newCondition("behavioral"), event: "bought", countOperator: "exact", count: "3", days: "90" },
    ];
    const input = toCohortInput(draft);
    expect(input).toEqual({
      name: "Buyers",
      description: "",
      is_static: false,
      filters: {
        properties: {
          type: "OR",
          values: [
            {
              type: "AND",
              values: [
                { type: "person", key: "email", operator: "icontains", value: "@acme.com", negation: false },
                { type: "person", key: "plan", operator: "exact", value: ["pro", "team"], negation: true },
                { type: "cohort", key: "id", value: 7, negation: false },
                { type: "behavioral", key: "$pageview", value: "performed_event", event_type: "events", time_value: 7, time_interval: "day", negation: false },
                { type: "behavioral", key: "bought", value: "performed_event_multiple", event_type: "events", time_value: 90, time_interval: "day", operator: "exact", operator_value: 3, negation: false },
              ],
            },
          ],
        },
      },
    });
    expect(cohortCreateBody.safeParse(input).success).toBe(true);
  });

  it("reads a saved cohort back into the same draft (not_in as Not), and says when the form cannot show it", () => {
    const draft = emptyDraft();
    draft.groups[0]!.conditions = [{ ...newCondition("behavioral"), event: "bought", countOperator: "gte", count: "2", days: "14" }];
    const filters = toCohortInput(draft).filters as Record<string, unknown>;
    const saved = { id: 1, name: "x", description: "", is_static: false, filters } as unknown as CohortResource;
    const back = draftOf(saved);
    expect(back.groups[0]!.conditions[0]).toMatchObject({ kind: "behavioral", event: "bought", countOperator: "gte", count: "2", days: "14" });
    const notIn = { ...saved, filters: { properties: { type: "AND", values: [{ type: "cohort", key: "id", value: 3, operator: "not_in" }] } } } as unknown as CohortResource;
    expect(draftOf(notIn).groups[0]!.conditions[0]).toMatchObject({ kind: "cohort", cohortId: "3", negation: true });
    expect(editableInForm(saved)).toBe(true);
    const deep = { ...saved, filters: { properties: { type: "OR", values: [{ type: "AND", values: [{ type: "OR", values: [] }] }] } } } as unknown as CohortResource;
    expect(editableInForm(deep)).toBe(false);
  });
});
