/** The props every suggestion input shares; the API other pages build on, so keep it stable. */
export interface SuggestionInputProps {
  value: string;
  onChange: (value: string) => void;
  /** A visible label; or `aria-label` for inputs labelled by their surroundings. */
  label?: string;
  "aria-label"?: string;
  id?: string;
  placeholder?: string;
  /** The project suggested from; the user's current project when absent. */
  projectId?: number;
  invalid?: boolean;
  disabled?: boolean;
  testId?: string;
  className?: string;
  inputClassName?: string;
}
