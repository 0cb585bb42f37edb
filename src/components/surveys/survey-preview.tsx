"use client";

import { useState } from "react";
import { cn } from "@/components/ui";
import type { DraftQuestion, SurveyDraft } from "./survey-draft";

const EMOJIS: Record<number, string[]> = { 3: ["😞", "😐", "😀"], 5: ["😡", "😞", "😐", "🙂", "😀"] };

/**
 * The builder's live preview: the popover as posthog-js draws it (its colours, its button
 * text, one question at a time), redrawn on every change of the draft.
 */
export function SurveyPreview({ draft }: { draft: SurveyDraft }) {
  const [index, setIndex] = useState(0);
  const [thanks, setThanks] = useState(false);
  const current = Math.min(index, Math.max(0, draft.questions.length - 1));
  const question = draft.questions[current];
  const next = () => (current + 1 < draft.questions.length ? setIndex(current + 1) : setThanks(true));
  return (
    <section aria-label="Preview" className="flex flex-col gap-3" data-testid="survey-preview">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold text-gray-800">Preview</h2>
        {draft.questions.length > 1 && (
          <label className="flex items-center gap-2 text-xs text-gray-600">
            Question
            <select className="rounded border border-gray-300 px-1 py-0.5" value={current} onChange={(event) => (setThanks(false), setIndex(Number(event.target.value)))} data-testid="preview-question">
              {draft.questions.map((_, i) => (
                <option key={i} value={i}>
                  {i + 1}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <div className="relative min-h-64 rounded-lg border border-dashed border-gray-300 bg-gray-50 p-4">
        <div
          className={cn("w-full max-w-xs rounded-lg border border-gray-300 p-4 shadow-lg", draft.position === "left" ? "mr-auto" : draft.position === "center" ? "mx-auto" : "ml-auto")}
          style={{ backgroundColor: draft.backgroundColor || "#eeeded" }}
          data-testid="preview-popover"
        >
          {thanks || !question ? (
            <div className="flex flex-col gap-3 text-center">
              <p className="font-semibold text-gray-900">{draft.thankYou || "Thank you!"}</p>
              <button type="button" className="rounded px-3 py-2 text-sm font-semibold text-white" style={{ backgroundColor: draft.submitButtonColor }} onClick={() => (setThanks(false), setIndex(0))}>
                Close
              </button>
            </div>
          ) : (
            <PreviewQuestion question={question} draft={draft} onNext={next} />
          )}
        </div>
      </div>
    </section>
  );
}

function PreviewQuestion({ question, draft, onNext }: { question: DraftQuestion; draft: SurveyDraft; onNext: () => void }) {
  const choices = question.choices.split("\n").map((line) => line.trim()).filter(Boolean);
  // As posthog-js labels it: the question's own text, else the builder's default for new questions.
  const button = question.buttonText || (question.type === "link" ? "Open" : draft.submitButtonText || "Submit");
  return (
    <div className="flex flex-col gap-3">
      <p className="font-semibold break-words text-gray-900" data-testid="preview-text">
        {question.question || "Your question"}
      </p>
      {question.description && <p className="text-sm break-words text-gray-700">{question.description}</p>}
      {question.type === "open" && <textarea aria-label="Answer" rows={3} className="rounded border border-gray-300 bg-white p-2 text-sm" placeholder="Start typing…" />}
      {question.type === "rating" && (
        <div className="flex flex-col gap-1">
          <div className="flex flex-wrap gap-1" data-testid="preview-rating">
            {question.display === "emoji" && EMOJIS[question.scale]
              ? EMOJIS[question.scale]!.map((emoji) => (
                  <button key={emoji} type="button" className="text-2xl" aria-label={emoji}>
                    {emoji}
                  </button>
                ))
              : Array.from({ length: question.scale === 10 ? 11 : question.scale }, (_, i) => (question.scale === 10 ? i : i + 1)).map((value) => (
                  <button key={value} type="button" className="min-w-7 flex-1 rounded border border-gray-300 bg-white px-1 py-1 text-sm">
                    {value}
                  </button>
                ))}
          </div>
          <div className="flex justify-between text-xs text-gray-600">
            <span>{question.lowerBoundLabel}</span>
            <span>{question.upperBoundLabel}</span>
          </div>
        </div>
      )}
      {(question.type === "single_choice" || question.type === "multiple_choice") && (
        <fieldset className="flex flex-col gap-1.5">
          <legend className="sr-only">Choices</legend>
          {[...choices, ...(question.hasOpenChoice ? ["Other…"] : [])].map((choice) => (
            <label key={choice} className="flex items-center gap-2 rounded border border-gray-300 bg-white px-2 py-1.5 text-sm">
              <input type={question.type === "single_choice" ? "radio" : "checkbox"} name="preview-choice" />
              {choice}
            </label>
          ))}
        </fieldset>
      )}
      <button type="button" className="rounded px-3 py-2 text-sm font-semibold text-white" style={{ backgroundColor: draft.submitButtonColor || "#1d4aff" }} onClick={onNext} data-testid="preview-submit">
        {button}
      </button>
    </div>
  );
}
