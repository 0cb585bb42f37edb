import type { ReactNode } from "react";
import { TopBar } from "./top-bar";

/** The frame of the signed-in pages: top bar with project switcher and navigation, then the page. */
export function AppShell({ user, children }: { user: { email: string; firstName: string }; children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only rounded-control bg-white px-3 py-2 text-sm font-medium text-gray-900 shadow-card focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50"
      >
        Skip to content
      </a>
      <TopBar user={user} />
      <main id="main" className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6 sm:py-10">
        {children}
      </main>
    </div>
  );
}
