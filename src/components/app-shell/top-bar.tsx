"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { Logo, LogoMark } from "@/components/logo";
import { Button, cn, Popover, popoverItemClasses } from "@/components/ui";
import { NAV_LINKS } from "./nav-links";
import { ProjectSwitcher } from "./project-switcher";
import { UserMenu } from "./user-menu";

export function TopBar({ user }: { user: { email: string; firstName: string } }) {
  const pathname = usePathname();
  // The mobile menu is open for the page it was opened on: navigating closes it.
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null);
  const menuOpen = menuOpenOn === pathname;

  return (
    <header className="sticky top-0 z-30 border-b border-gray-200 bg-white" data-testid="top-bar">
      {/* The bar spans the window, not the page's column: at 1280 px the column leaves the project's name too little room. */}
      <div className="flex h-14 w-full items-center gap-1.5 px-3 sm:gap-3 sm:px-6">
        <Link href="/" aria-label="Burrow home" className="shrink-0 rounded-control p-1">
          <LogoMark className="size-7 2xl:hidden" />
          <span className="hidden 2xl:inline-flex">
            <Logo />
          </span>
        </Link>
        <span aria-hidden="true" className="hidden text-lg font-light text-gray-300 2xl:block">
          /
        </span>
        <ProjectSwitcher className="min-w-0" />
        {/*
          No prefetch on the nav links: for these dynamic pages a prefetch brings only the route
          tree (272 bytes) yet costs the server ~16 ms, and a page view made ten of them while
          it hydrated, on two cores (measured with RSC / Next-Router-Prefetch requests).
        */}
        <nav aria-label="Main" className="ml-1 hidden shrink-0 items-center gap-0.5 lg:flex xl:ml-3">
          {NAV_LINKS.map((link) => {
            const active = link.match(pathname);
            return (
              <Link
                key={link.href}
                href={link.href}
                prefetch={false}
                aria-current={active ? "page" : undefined}
                data-testid={`nav-${link.label.toLowerCase()}`}
                className={cn(
                  "whitespace-nowrap rounded-control px-2 py-1.5 text-sm font-medium 2xl:px-2.5",
                  link.more === "always" ? "hidden" : link.more && "hidden xl:block",
                  active ? "bg-gray-100 text-gray-900" : "text-gray-600 hover:bg-gray-50 hover:text-gray-900",
                )}
              >
                {link.label}
              </Link>
            );
          })}
          <MoreLinks pathname={pathname} />
        </nav>
        <div className="ml-auto hidden shrink-0 lg:block">
          <UserMenu user={user} />
        </div>
        <button
          type="button"
          className="ml-auto inline-flex size-10 shrink-0 items-center justify-center rounded-control text-gray-700 hover:bg-gray-100 lg:hidden"
          aria-expanded={menuOpen}
          aria-controls="mobile-menu"
          aria-label="Menu"
          data-testid="mobile-menu-button"
          onClick={() => setMenuOpenOn(menuOpen ? null : pathname)}
        >
          <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" className="size-5">
            {menuOpen ? <path d="M5 5l10 10M15 5 5 15" /> : <path d="M3 6h14M3 10h14M3 14h14" />}
          </svg>
        </button>
      </div>
      <div
        id="mobile-menu"
        hidden={!menuOpen}
        className="border-t border-gray-200 bg-white lg:hidden"
        data-testid="mobile-menu"
        onKeyDown={(event) => {
          if (event.key === "Escape") setMenuOpenOn(null);
        }}
      >
        <nav aria-label="Main" className="flex flex-col px-3 py-2">
          {NAV_LINKS.map((link) => {
            const active = link.match(pathname);
            return (
              <Link
                key={link.href}
                href={link.href}
                prefetch={false}
                aria-current={active ? "page" : undefined}
                className={cn(
                  "rounded-control px-3 py-2.5 text-base font-medium",
                  active ? "bg-gray-100 text-gray-900" : "text-gray-700 hover:bg-gray-50",
                )}
              >
                {link.label}
              </Link>
            );
          })}
        </nav>
        <div className="flex items-center justify-between gap-3 border-t border-gray-200 px-6 py-3">
          <div className="min-w-0 text-sm">
            <p className="text-gray-500">Signed in as</p>
            <p className="truncate font-medium text-gray-900" data-testid="mobile-user-email">
              {user.email}
            </p>
          </div>
          <Button variant="secondary" size="sm" onClick={() => void signOut({ callbackUrl: "/login" })} data-testid="mobile-sign-out">
            Sign out
          </Button>
        </div>
      </div>
    </header>
  );
}

const MORE_LINKS = NAV_LINKS.filter((link) => link.more);

/**
 * The links a narrower desktop bar has no room for (1024–1279 px), and on every desktop width
 * those marked "always"; the button names the current page when it is one of the hidden links.
 */
function MoreLinks({ pathname }: { pathname: string }) {
  const current = MORE_LINKS.find((link) => link.match(pathname));
  return (
    <Popover
      buttonTestId="nav-more"
      panelTestId="nav-more-menu"
      buttonLabel={current ? `More: ${current.label}` : "More"}
      buttonClassName={cn(
        "flex items-center gap-1 whitespace-nowrap rounded-control px-2 py-1.5 text-sm font-medium",
        current ? "bg-gray-100 text-gray-900" : "text-gray-600 hover:bg-gray-50 hover:text-gray-900",
      )}
      button={
        <>
          {!current ? "More" : current.more === "always" ? current.label : (
            <>
              <span className="xl:hidden">{current.label}</span>
              <span className="hidden xl:inline">More</span>
            </>
          )}
          <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-4 text-gray-400">
            <path fillRule="evenodd" d="M5.2 7.2a.75.75 0 0 1 1.06 0L10 10.94l3.74-3.74a.75.75 0 1 1 1.06 1.06l-4.27 4.27a.75.75 0 0 1-1.06 0L5.2 8.26a.75.75 0 0 1 0-1.06Z" clipRule="evenodd" />
          </svg>
        </>
      }
      panelClassName="min-w-44"
    >
      {(close) =>
        MORE_LINKS.map((link) => {
          const active = link.match(pathname);
          return (
            <Link
              key={link.href}
              href={link.href}
              prefetch={false}
              aria-current={active ? "page" : undefined}
              className={cn(popoverItemClasses, link.more !== "always" && "xl:hidden", active && "font-medium text-gray-900")}
              onClick={close}
            >
              {link.label}
            </Link>
          );
        })
      }
    </Popover>
  );
}
