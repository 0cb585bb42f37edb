"use client";

import { useEffect, useRef, useState } from "react";
import { Button, type ButtonSize, type ButtonVariant } from "./button";

type CopyState = "idle" | "copied" | "failed";

/** Copies with the Clipboard API, falling back to a hidden textarea and execCommand. */
async function copyText(value: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(value);
      return true;
    }
  } catch {
    // Denied or unavailable: try the old way.
  }
  const area = document.createElement("textarea");
  area.value = value;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

export interface CopyButtonProps {
  value: string;
  /** What is copied, for screen readers: "Copy the project API key". */
  label?: string;
  testId?: string;
  size?: ButtonSize;
  variant?: ButtonVariant;
  className?: string;
}

/** A Copy button that says "Copied" for a moment (visibly and to screen readers). */
export function CopyButton({ value, label, testId, size = "md", variant = "secondary", className }: CopyButtonProps) {
  const [state, setState] = useState<CopyState>("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    const ok = await copyText(value);
    setState(ok ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), 2500);
  }

  return (
    <>
      <Button
        variant={variant}
        size={size}
        onClick={() => void copy()}
        aria-label={state === "idle" ? label : undefined}
        data-testid={testId}
        data-state={state}
        className={className}
      >
        {state === "copied" ? (
          <>
            <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-4 text-emerald-600">
              <path
                fillRule="evenodd"
                d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.6l7.3-7.3a1 1 0 0 1 1.4 0Z"
                clipRule="evenodd"
              />
            </svg>
            Copied
          </>
        ) : state === "failed" ? (
          "Press Ctrl+C"
        ) : (
          <>
            <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.6" className="size-4">
              <rect x="7" y="7" width="10" height="10" rx="2" />
              <path d="M13 7V5a2 2 0 0 0-2-2H5a2 2 0 0 0-2 2v6a2 2 0 0 0 2 2h2" />
            </svg>
            Copy
          </>
        )}
      </Button>
      <span aria-live="polite" className="sr-only">
        {state === "copied" ? "Copied to the clipboard" : state === "failed" ? "Could not copy; select the text and copy it yourself" : ""}
      </span>
    </>
  );
}
