import type { ReactNode } from "react";
import { Logo } from "@/components/logo";
import { SkipLink } from "@/components/ui";

/**
 * The frame of public shared pages: Burrow's name and nothing to click, since a visitor
 * with a share link has no account and nowhere else to go.
 */
export function SharedFrame({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <SkipLink />
      <header className="border-b border-gray-200 bg-white">
        <div className="mx-auto flex h-14 w-full max-w-6xl items-center px-4 sm:px-6">
          <Logo />
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6 sm:py-10">
        {children}
      </main>
      <footer className="border-t border-gray-200">
        <div className="mx-auto w-full max-w-6xl px-4 py-5 text-sm text-gray-500 sm:px-6">Shared with Burrow · read-only</div>
      </footer>
    </div>
  );
}
