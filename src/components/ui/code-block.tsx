"use client";

import { cn } from "./cn";
import { CopyButton } from "./copy-button";

export interface CodeBlockProps {
  code: string;
  /** Shown above the code, e.g. the package or language. */
  title: string;
  testId?: string;
  className?: string;
}

/** A snippet to paste into an app, with its own Copy button. */
export function CodeBlock({ code, title, testId, className }: CodeBlockProps) {
  return (
    <figure className={cn("min-w-0 overflow-hidden rounded-control border border-gray-800 bg-gray-950", className)}>
      <figcaption className="flex items-center justify-between gap-2 border-b border-gray-800 py-1.5 pr-1.5 pl-3.5">
        <span className="font-mono text-xs text-gray-300">{title}</span>
        <CopyButton value={code} label={`Copy the ${title} snippet`} size="sm" variant="inverse" testId={testId ? `${testId}-copy` : undefined} />
      </figcaption>
      <pre className="overflow-x-auto p-3.5 text-[13px] leading-relaxed text-gray-100" tabIndex={0} data-testid={testId}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
