import { describe, expect, it } from "vitest";
import { surveyCreateBody } from "@/server/surveys/contract";
import { bodyOf, emptySurveyDraft, newQuestion } from "./survey-draft";

describe("the survey builder's body", () => {
  it("is what the API takes, each question with the default button text unless it has its own; links keep theirs", () => {
    const draft = { ...emptySurveyDraft(), name: "NPS", submitButtonText: "Send", url: "/pricing", questions: [newQuestion("rating"), { ...newQuestion("open"), buttonText: "Go" }, { ...newQuestion("link"), link: "https://cal.example" }] };
    const body = surveyCreateBody.parse(bodyOf(draft));
    expect(body.questions.map((question) => question.buttonText ?? null)).toEqual(["Send", "Go", null]);
    expect(body.conditions).toMatchObject({ url: "/pricing", urlMatchType: "icontains" });
    expect(body.appearance).toMatchObject({ submitButtonText: "Send", position: "right" });
  });
});
