import Link from "next/link";
import type { ReactNode } from "react";
import { SkipLink } from "@/components/ui";
import { Logo } from "@/components/logo";

/**
 * The frame of pages outside the signed-in app (not found, errors): a top bar with the logo and a centred
 * content column. Signed-in pages use AppShell.
 */
export function SiteShell({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <SkipLink />
      <header className="border-b border-gray-200 bg-white">
        <div className="mx-auto flex h-14 w-full max-w-5xl items-center justify-between px-4 sm:px-6">
          <Link href="/" className="rounded-control focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-brand-600">
            <Logo />
          </Link>
        </div>
      </header>
      <main id="main" className="mx-auto w-full max-w-5xl flex-1 px-4 py-8 sm:px-6 sm:py-12">
        {children}
      </main>
      <footer className="border-t border-gray-200">
        <div className="mx-auto w-full max-w-5xl px-4 py-5 text-sm text-gray-500 sm:px-6">
          Burrow · self-hosted product analytics
        </div>
      </footer>
    </div>
  );
}
