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

/** Where the unquoted text from `i` ends: at the next comma or line break, or the end. */
function fieldEnd(text: string, i: number): number {
  for (; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 44 /* , */ || char === 10 /* \n */ || char === 13 /* \r */) return i;
  }
  return i;
}

/**
 * RFC 4180 rows, one at a time: quoted fields may hold commas, quotes ("") and line breaks;
 * text after a closing quote belongs to the field; blank lines are skipped. Fields are
 * slices of the text (a 20 MB quoted id is one pass, not a string grown per character).
 */
export function* csvRows(text: string): Generator<string[]> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const row: string[] = [];
    for (;;) {
      let field: string;
      if (text.charCodeAt(i) === 34 /* " */) {
        const parts: string[] = [];
        let start = ++i;
        for (;;) {
          const quote = text.indexOf('"', i);
          if (quote < 0) {
            parts.push(text.slice(start));
            i = n;
            break;
          }
          if (text.charCodeAt(quote + 1) === 34) {
            parts.push(text.slice(start, quote + 1));
            i = start = quote + 2;
            continue;
          }
          parts.push(text.slice(start, quote));
          i = quote + 1;
          break;
        }
        const end = fieldEnd(text, i);
        field = parts.join("") + text.slice(i, end);
        i = end;
      } else {
        const end = fieldEnd(text, i);
        field = text.slice(i, end);
        i = end;
      }
      row.push(field);
      if (i < n && text.charCodeAt(i) === 44) {
        i++;
        continue;
      }
      if (i < n) i += text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10 ? 2 : 1;
      break;
    }
    if (!(row.length === 1 && row[0] === "")) yield row;
  }
}

/** Every row at once (tests). */
export function parseCsvRows(text: string): string[][] {
  return [...csvRows(text)];
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

/** Rows read between two turns of the event loop: a file of 1.6M ids lets other requests in thousands of times. */
const ROWS_PER_TURN = 10_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Which ids a CSV file names, by PostHog's column rules. Rows are read one at a time and only
 * the chosen column is kept (each id once), yielding to other requests every ROWS_PER_TURN rows.
 */
export async function csvIds(bytes: Uint8Array): Promise<CsvIds> {
  const rows = csvRows(csvText(bytes));
  const first = rows.next();
  if (first.done) refuse(CSV_MESSAGES.empty);
  const header = first.value.map(normalise);
  let kind: CsvIdKind;
  let index = 0;
  let headerIsData = false;
  if (header.length === 1) {
    const only = header[0]!;
    if (PERSON_ID_HEADERS.has(only)) kind = "person_id";
    else if (EMAIL_HEADERS.has(only)) kind = "email";
    else {
      kind = "distinct_id";
      headerIsData = true;
    }
  } else {
    const find = (names: Set<string>) => header.findIndex((name) => names.has(name));
    const choices: [CsvIdKind, number][] = [
      ["person_id", find(PERSON_ID_HEADERS)],
      ["distinct_id", find(DISTINCT_ID_HEADERS)],
      ["email", find(EMAIL_HEADERS)],
    ];
    const chosen = choices.find(([, at]) => at >= 0);
    if (!chosen) refuse(CSV_MESSAGES.multiColumn);
    [kind, index] = chosen;
  }
  const ids = new Set<string>();
  const add = (value: string | undefined) => {
    const id = (value ?? "").trim();
    if (id === "") return;
    if (id.length > MAX_ID_LENGTH) refuse(CSV_MESSAGES.tooLong);
    ids.add(id);
  };
  if (headerIsData) add(first.value[0]);
  let read = 0;
  for (const row of rows) {
    add(row[index]);
    if (++read % ROWS_PER_TURN === 0) await nextTurn();
  }
  if (ids.size === 0) refuse(CSV_MESSAGES.noIds);
  return { kind, ids: [...ids] };
}
