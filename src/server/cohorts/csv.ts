/**
 * PostHog's rules for a static cohort's CSV (posthog/api/cohort.py `_calculate_static_by_csv`):
 *
 * - One column: a header `person_id` / `person-id` / `Person .id` → person uuids; `email` /
 *   `e-mail` → e-mail addresses; anything else → distinct ids, the first row included (a
 *   one-column file of ids needs no header).
 * - Several columns: the first column whose header is person_id, else distinct_id
 *   (`distinct_id`, `distinct-id`), else email; none of them → refused.
 * - Empty cells are skipped; an empty file or one without ids is refused. Text must be UTF-8
 *   (a byte-order mark is dropped) without NUL.
 */
import { AppError } from "@/server/errors";

export type CsvIdKind = "person_id" | "distinct_id" | "email";

export interface CsvIds {
  kind: CsvIdKind;
  ids: string[];
}

export const CSV_MESSAGES = {
  empty: "The CSV file is empty.",
  noIds: "The CSV file holds no person identifiers.",
  encoding: "The CSV file must be UTF-8 text.",
  nul: "The CSV file must not contain null characters.",
  multiColumn:
    "Multi-column CSV must contain at least one column with a supported ID header: 'person_id' (or 'person-id', 'Person .id'), 'distinct_id' (or 'distinct-id'), or 'email' (or 'e-mail').",
  tooLong: "An identifier in the CSV file is longer than 1000 characters.",
} as const;

const MAX_ID_LENGTH = 1000;

const normalise = (header: string) => header.trim().toLowerCase();
const PERSON_ID_HEADERS = new Set(["person_id", "person-id", "person .id"]);
const DISTINCT_ID_HEADERS = new Set(["distinct_id", "distinct-id"]);
const EMAIL_HEADERS = new Set(["email", "e-mail"]);

function refuse(message: string): never {
  throw new AppError("invalid_input", message, "csv");
}

/** RFC 4180 rows: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  const endField = () => {
    row.push(field);
    field = "";
  };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === "")) rows.push(row);
    row = [];
  };
  while (i < text.length) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        field += char;
      }
      i++;
      continue;
    }
    if (char === '"' && field === "") quoted = true;
    else if (char === ",") endField();
    else if (char === "\n" || char === "\r") {
      endRow();
      if (char === "\r" && text[i + 1] === "\n") i++;
    } else field += char;
    i++;
  }
  if (field !== "" || row.length > 0) endRow();
  return rows;
}

/** The file's bytes as text, or a 400 naming `csv`. */
export function csvText(bytes: Uint8Array): string {
  if (bytes.length === 0) refuse(CSV_MESSAGES.empty);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    refuse(CSV_MESSAGES.encoding);
  }
  if (text.includes("\u0000")) refuse(CSV_MESSAGES.nul);
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

function cleaned(values: string[]): string[] {
  const ids = new Set<string>();
  for (const value of values) {
    const id = value.trim();
    if (id === "") continue;
    if (id.length > MAX_ID_LENGTH) refuse(CSV_MESSAGES.tooLong);
    ids.add(id);
  }
  return [...ids];
}

/** Which ids a CSV file names, by PostHog's column rules. */
export function csvIds(bytes: Uint8Array): CsvIds {
  const rows = parseCsvRows(csvText(bytes));
  if (rows.length === 0) refuse(CSV_MESSAGES.empty);
  const header = rows[0]!.map(normalise);
  let result: CsvIds;
  if (header.length === 1) {
    const only = header[0]!;
    const column = rows.slice(1).map((row) => row[0] ?? "");
    if (PERSON_ID_HEADERS.has(only)) result = { kind: "person_id", ids: cleaned(column) };
    else if (EMAIL_HEADERS.has(only)) result = { kind: "email", ids: cleaned(column) };
    else result = { kind: "distinct_id", ids: cleaned(rows.map((row) => row[0] ?? "")) };
  } else {
    const find = (names: Set<string>) => header.findIndex((name) => names.has(name));
    const choices: [CsvIdKind, number][] = [
      ["person_id", find(PERSON_ID_HEADERS)],
      ["distinct_id", find(DISTINCT_ID_HEADERS)],
      ["email", find(EMAIL_HEADERS)],
    ];
    const chosen = choices.find(([, index]) => index >= 0);
    if (!chosen) refuse(CSV_MESSAGES.multiColumn);
    const [kind, index] = chosen;
    result = { kind, ids: cleaned(rows.slice(1).map((row) => row[index] ?? "")) };
  }
  if (result.ids.length === 0) refuse(CSV_MESSAGES.noIds);
  return result;
}
