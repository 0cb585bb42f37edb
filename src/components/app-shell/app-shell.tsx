import type { ReactNode } from "react";
import { SkipLink } from "@/components/ui";
import { TopBar } from "./top-bar";

/** The frame of the signed-in pages: top bar with project switcher and navigation, then the page. */
export function AppShell({ user, children }: { user: { email: string; firstName: string }; children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <SkipLink />
      <TopBar user={user} />
      <main id="main" className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6 sm:py-10">
        {children}
      </main>
    </div>
  );
}
