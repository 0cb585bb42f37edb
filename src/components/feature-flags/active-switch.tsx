"use client";

import { cn } from "@/components/ui";

/** The enabled/disabled switch of a flag: a button with role="switch", so Space and Enter toggle it. */
export function ActiveSwitch({ flagKey, active, pending, onChange }: { flagKey: string; active: boolean; pending: boolean; onChange: (active: boolean) => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={active}
      aria-label={`${flagKey} enabled`}
      disabled={pending}
      onClick={() => onChange(!active)}
      data-testid="flag-active-switch"
      className="group inline-flex items-center gap-2 rounded-full text-sm text-gray-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
    >
      <span className={cn("relative inline-flex h-6 w-11 shrink-0 rounded-full transition-colors", active ? "bg-brand-600" : "bg-gray-300")}>
        <span className={cn("absolute top-0.5 size-5 rounded-full bg-white shadow transition-transform", active ? "translate-x-5.5" : "translate-x-0.5")} />
      </span>
      <span className="w-16 text-left">{active ? "Enabled" : "Disabled"}</span>
    </button>
  );
}
