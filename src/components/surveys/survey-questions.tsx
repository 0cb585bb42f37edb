"use client";

import { Button, Card, inputClasses, RemoveButton } from "@/components/ui";
import { newQuestion, type DraftQuestion, type DraftQuestionType } from "./survey-draft";

const TYPES: { value: DraftQuestionType; label: string }[] = [
  { value: "open", label: "Open text" },
  { value: "rating", label: "Rating" },
  { value: "single_choice", label: "Single choice" },
  { value: "multiple_choice", label: "Multiple choice" },
  { value: "link", label: "Link" },
];

const label = "flex flex-col gap-1 text-sm font-medium text-gray-800";

/** The builder's questions: each with its type's fields; added, removed, reordered by removal. */
export function QuestionsEditor({ questions, onChange }: { questions: DraftQuestion[]; onChange: (questions: DraftQuestion[]) => void }) {
  const set = (index: number, patch: Partial<DraftQuestion>) => onChange(questions.map((question, i) => (i === index ? { ...question, ...patch } : question)));
  return (
    <div className="flex flex-col gap-3" data-testid="survey-questions">
      {questions.map((question, index) => (
        <Card key={index} className="flex flex-col gap-3 p-4" data-testid="survey-question">
          <div className="flex items-center justify-between gap-2">
            <h3 className="text-sm font-semibold text-gray-900">Question {index + 1}</h3>
            {questions.length > 1 && <RemoveButton label={`Remove question ${index + 1}`} onClick={() => onChange(questions.filter((_, i) => i !== index))} />}
          </div>
          <div className="grid gap-3 sm:grid-cols-[12rem_minmax(0,1fr)]">
            <label className={label}>
              Type
              <select className={inputClasses()} value={question.type} onChange={(event) => set(index, { type: event.target.value as DraftQuestionType, ...(question.question ? {} : { question: newQuestion(event.target.value as DraftQuestionType).question }) })} data-testid="question-type">
                {TYPES.map((type) => (
                  <option key={type.value} value={type.value}>
                    {type.label}
                  </option>
                ))}
              </select>
            </label>
            <label className={label}>
              Question
              <input className={inputClasses()} value={question.question} required maxLength={5000} onChange={(event) => set(index, { question: event.target.value })} data-testid="question-text" />
            </label>
          </div>
          <label className={label}>
            Description <span className="text-xs font-normal text-gray-500">optional</span>
            <input className={inputClasses()} value={question.description} maxLength={5000} onChange={(event) => set(index, { description: event.target.value })} data-testid="question-description" />
          </label>
          {question.type === "rating" && (
            <div className="grid gap-3 sm:grid-cols-4">
              <label className={label}>
                Display
                <select className={inputClasses()} value={question.display} onChange={(event) => set(index, { display: event.target.value as "number" | "emoji", scale: event.target.value === "emoji" ? 5 : question.scale })} data-testid="question-display">
                  <option value="number">Numbers</option>
                  <option value="emoji">Emoji</option>
                </select>
              </label>
              <label className={label}>
                Scale
                <select className={inputClasses()} value={question.scale} onChange={(event) => set(index, { scale: Number(event.target.value) as DraftQuestion["scale"] })} data-testid="question-scale">
                  {(question.display === "emoji" ? [3, 5] : [5, 7, 10]).map((scale) => (
                    <option key={scale} value={scale}>
                      {scale === 10 ? "0–10 (NPS)" : `1–${scale}`}
                    </option>
                  ))}
                </select>
              </label>
              <label className={label}>
                Low label
                <input className={inputClasses()} value={question.lowerBoundLabel} maxLength={200} onChange={(event) => set(index, { lowerBoundLabel: event.target.value })} />
              </label>
              <label className={label}>
                High label
                <input className={inputClasses()} value={question.upperBoundLabel} maxLength={200} onChange={(event) => set(index, { upperBoundLabel: event.target.value })} />
              </label>
            </div>
          )}
          {(question.type === "single_choice" || question.type === "multiple_choice") && (
            <div className="flex flex-col gap-2">
              <label className={label}>
                Choices <span className="text-xs font-normal text-gray-500">one per line</span>
                <textarea className={inputClasses({ className: "h-24 py-2" })} value={question.choices} onChange={(event) => set(index, { choices: event.target.value })} data-testid="question-choices" />
              </label>
              <label className="flex items-center gap-2 text-sm text-gray-800">
                <input type="checkbox" checked={question.hasOpenChoice} onChange={(event) => set(index, { hasOpenChoice: event.target.checked })} />
                An “Other” choice the person types
              </label>
            </div>
          )}
          {question.type === "link" && (
            <label className={label}>
              Link <span className="text-xs font-normal text-gray-500">https:// or mailto:</span>
              <input className={inputClasses()} value={question.link} maxLength={2000} onChange={(event) => set(index, { link: event.target.value })} data-testid="question-link" />
            </label>
          )}
          <div className="grid gap-3 sm:grid-cols-2">
            <label className={label}>
              Button text <span className="text-xs font-normal text-gray-500">optional</span>
              <input className={inputClasses()} value={question.buttonText} maxLength={200} onChange={(event) => set(index, { buttonText: event.target.value })} />
            </label>
            <label className="flex items-center gap-2 self-end pb-2 text-sm text-gray-800">
              <input type="checkbox" checked={question.optional} onChange={(event) => set(index, { optional: event.target.checked })} />
              Optional
            </label>
          </div>
        </Card>
      ))}
      <div>
        <Button type="button" variant="secondary" onClick={() => onChange([...questions, newQuestion("rating")])} data-testid="add-question">
          Add question
        </Button>
      </div>
    </div>
  );
}
