import type { ReactNode } from "react";

/** One label and value of a `<dl>` of facts (project id, organization, …). */
export function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-gray-500">{label}</dt>
      <dd className="mt-0.5 font-medium break-words text-gray-900">{children}</dd>
    </div>
  );
}
