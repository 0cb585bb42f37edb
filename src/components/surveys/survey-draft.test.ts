import { describe, expect, it } from "vitest";
import { surveyCreateBody } from "@/server/surveys/contract";
import type { SurveyResource } from "@/server/surveys/contract";
import { bodyOf, draftOf, emptySurveyDraft, newQuestion } from "./survey-draft";

describe("the survey builder's body", () => {
  it("is what the API takes, each question with the default button text unless it has its own; links keep theirs", () => {
    const draft = { ...emptySurveyDraft(), name: "NPS", submitButtonText: "Send", url: "/pricing", questions: [newQuestion("rating"), { ...newQuestion("open"), buttonText: "Go" }, { ...newQuestion("link"), link: "https://cal.example" }] };
    const body = surveyCreateBody.parse(bodyOf(draft));
    expect(body.questions.map((question) => question.buttonText ?? null)).toEqual(["Send", "Go", null]);
    expect(body.conditions).toMatchObject({ url: "/pricing", urlMatchType: "icontains" });
    expect(body.appearance).toMatchObject({ submitButtonText: "Send", position: "right" });
  });
});

describe("a saved survey read back into the builder and saved again", () => {
  const saved = (overrides: Partial<SurveyResource>): SurveyResource =>
    ({
      id: "0190a5e8-0000-7000-8000-000000000001",
      name: "Checkout",
      description: "",
      type: "popover",
      schedule: "once",
      questions: [{ type: "open", question: "Anything?", id: "q1" }],
      conditions: null,
      appearance: null,
      linked_flag: null,
      linked_flag_id: null,
      targeting_flag: null,
      iteration_count: null,
      iteration_frequency_days: null,
      ...overrides,
    }) as SurveyResource;

  it("keeps what the form does not edit (cancel events, events' property filters) and edits the rest", () => {
    const survey = saved({
      conditions: {
        url: "/checkout",
        urlMatchType: "exact",
        selector: "#pay",
        deviceTypes: ["Mobile"],
        events: { repeatedActivation: true, values: [{ name: "paid", propertyFilters: { plan: { values: ["pro"], operator: "exact" } } }] },
        cancelEvents: { values: [{ name: "refunded" }] },
        actions: { values: [{ id: 7, name: "Signed up", steps: [] }] },
        linkedFlagVariant: "test",
      },
      linked_flag_id: 3,
    });
    const draft = draftOf(survey);
    expect(draft).toMatchObject({ selector: "#pay", deviceTypes: ["Mobile"], events: "paid", repeatedActivation: true, actionIds: [7], linkedFlagId: "3", linkedFlagVariant: "test" });
    const body = surveyCreateBody.parse(bodyOf({ ...draft, events: "paid\nviewed cart", deviceTypes: ["Mobile", "Tablet"] }));
    expect(body.conditions).toEqual({
      url: "/checkout",
      urlMatchType: "exact",
      selector: "#pay",
      deviceTypes: ["Mobile", "Tablet"],
      events: { repeatedActivation: true, values: [{ name: "paid", propertyFilters: { plan: { values: ["pro"], operator: "exact" } } }, { name: "viewed cart" }] },
      cancelEvents: { values: [{ name: "refunded" }] },
      // The server fills in each action's name and steps again.
      actions: { values: [{ id: 7 }] },
      linkedFlagVariant: "test",
    });
    expect(body.linked_flag_id).toBe(3);
  });

  it("sends person targeting as the targeting flag's filters, removes it when emptied, and leaves an uneditable one alone", () => {
    const flag = { id: 9, team_id: 1, name: "t", key: "survey-targeting-abc", deleted: false, active: true, filters: { groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 50, variant: null }] } };
    const draft = draftOf(saved({ targeting_flag: flag }));
    expect(draft.targeting).toHaveLength(1);
    expect(bodyOf(draft).targeting_flag_filters).toEqual({ groups: [{ properties: [{ key: "plan", type: "person", operator: "exact", value: ["pro"] }], rollout_percentage: 50, variant: null }] });
    expect(bodyOf({ ...draft, targeting: [] })).toMatchObject({ remove_targeting_flag: true });
    expect(bodyOf({ ...emptySurveyDraft(), name: "x" })).not.toHaveProperty("remove_targeting_flag");
    const groupFlag = { ...flag, filters: { aggregation_group_type_index: 0, groups: flag.filters.groups } };
    const untouchable = draftOf(saved({ targeting_flag: groupFlag }));
    expect(untouchable.targeting).toBeNull();
    expect(bodyOf(untouchable)).not.toHaveProperty("targeting_flag_filters");
    expect(bodyOf(untouchable)).not.toHaveProperty("remove_targeting_flag");
  });

  it("sends the iteration schedule only for a recurring survey", () => {
    const draft = { ...emptySurveyDraft(), name: "NPS", schedule: "recurring" as const, iterationCount: "4", iterationFrequencyDays: "90" };
    expect(surveyCreateBody.parse(bodyOf(draft))).toMatchObject({ schedule: "recurring", iteration_count: 4, iteration_frequency_days: 90 });
    expect(surveyCreateBody.parse(bodyOf({ ...draft, schedule: "once" }))).toMatchObject({ schedule: "once", iteration_count: null, iteration_frequency_days: null });
  });
});
