"use client";

import { numberFormat, ResultEmpty, ResultFrame, ResultMismatch } from "./chart-parts";

/** A HogQLQuery result ({columns, types, results: rows}) as a plain table that scrolls in the tile. */
export function HogQLTable({ results, columns }: { results: unknown; columns?: unknown }) {
  const kind = "hogql";
  if (!Array.isArray(results) || !results.every(Array.isArray)) return <ResultMismatch kind={kind} message="Expected rows of a HogQL query." />;
  const rows = results as unknown[][];
  if (rows.length === 0) return <ResultEmpty kind={kind} title="No rows" detail="The query returned nothing." />;
  const width = Math.max(...rows.map((row) => row.length));
  const names = Array.from({ length: width }, (_, index) => (Array.isArray(columns) && columns[index] !== undefined ? String(columns[index]) : `Column ${index + 1}`));
  return (
    <ResultFrame kind={kind} state="ready" className="overflow-auto">
      <table className="w-full text-left text-sm" data-testid="hogql-table">
        <thead className="sticky top-0 bg-white text-xs text-gray-500">
          <tr>
            {names.map((name, index) => (
              <th key={index} scope="col" className="py-1.5 pr-3 font-medium whitespace-nowrap">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-gray-100">
          {rows.map((row, rowIndex) => (
            <tr key={rowIndex}>
              {names.map((_, index) => {
                const value = row[index];
                return (
                  <td key={index} className={`max-w-64 truncate py-1.5 pr-3 text-gray-800 ${typeof value === "number" ? "text-right tabular-nums" : ""}`} title={cellText(value)}>
                    {cellText(value)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </ResultFrame>
  );
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number") return numberFormat.format(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}
