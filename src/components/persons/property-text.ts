/** A property value as one line of text: strings as they are, anything else as JSON; missing is "". */
export function propertyText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** What the property form's value field means: JSON when it parses (numbers, booleans, lists), else the text itself. */
export function propertyValueOf(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === "") return "";
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}
