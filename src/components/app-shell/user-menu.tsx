"use client";

import Link from "next/link";
import { signOut } from "next-auth/react";
import { Popover, popoverItemClasses } from "@/components/ui";

export function UserMenu({ user }: { user: { email: string; firstName: string } }) {
  const initial = (user.firstName || user.email).charAt(0).toUpperCase();
  return (
    <Popover
      align="end"
      buttonTestId="user-menu-button"
      panelTestId="user-menu"
      buttonLabel={`Account: ${user.email}`}
      buttonClassName="flex h-9 items-center gap-2 rounded-full py-1 pr-2.5 pl-1 text-sm text-gray-700 hover:bg-gray-100"
      button={
        <>
          {/* The initial is drawn by CSS: as text it would read as part of the button's visible label, which the accessible name must contain. */}
          <span
            aria-hidden="true"
            data-initial={initial}
            className="flex size-7 items-center justify-center rounded-full bg-brand-100 text-xs font-semibold text-brand-800 before:content-[attr(data-initial)]"
          />
          <span className="hidden max-w-48 truncate 2xl:block">{user.email}</span>
          <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-4 text-gray-400">
            <path fillRule="evenodd" d="M5.2 7.2a.75.75 0 0 1 1.06 0L10 10.94l3.74-3.74a.75.75 0 1 1 1.06 1.06l-4.27 4.27a.75.75 0 0 1-1.06 0L5.2 8.26a.75.75 0 0 1 0-1.06Z" clipRule="evenodd" />
          </svg>
        </>
      }
    >
      {(close) => (
        <>
          <div className="border-b border-gray-200 px-3.5 pt-1.5 pb-2.5">
            <p className="text-xs text-gray-500">Signed in as</p>
            <p className="truncate text-sm font-medium text-gray-900" data-testid="user-email">
              {user.email}
            </p>
          </div>
          <div className="py-1">
            <Link href="/settings/personal-api-keys" className={popoverItemClasses} onClick={close}>
              Personal API keys
            </Link>
            <Link href="/settings/organization" className={popoverItemClasses} onClick={close}>
              Organization
            </Link>
            {/* Not a page of the app (Swagger UI over /api/schema/): a plain link, a full page load. */}
            <a href="/api/docs" className={popoverItemClasses} onClick={close}>
              API reference
            </a>
          </div>
          <div className="border-t border-gray-200 pt-1">
            <button type="button" className={popoverItemClasses} data-testid="sign-out" onClick={() => void signOut({ callbackUrl: "/login" })}>
              Sign out
            </button>
          </div>
        </>
      )}
    </Popover>
  );
}
