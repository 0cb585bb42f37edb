"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/components/ui";

const SECTIONS = [
  { href: "/settings/project", label: "Project" },
  { href: "/settings/organization", label: "Organization" },
  { href: "/settings/personal-api-keys", label: "Personal API keys" },
  { href: "/settings/password", label: "Password" },
] as const;

/** Tabs above the settings on narrow screens, a side list on wide ones. */
export function SettingsNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Settings" className="-mx-4 overflow-x-auto border-b border-gray-200 px-4 sm:mx-0 sm:px-0 lg:w-52 lg:shrink-0 lg:border-b-0">
      <ul className="flex gap-1 lg:flex-col">
        {SECTIONS.map((section) => {
          const active = pathname === section.href;
          return (
            <li key={section.href} className="shrink-0">
              <Link
                href={section.href}
                aria-current={active ? "page" : undefined}
                data-testid={`settings-nav-${section.href.split("/").pop()}`}
                className={cn(
                  "block border-b-2 px-3 py-2.5 text-sm font-medium whitespace-nowrap",
                  "lg:rounded-control lg:border-b-0 lg:py-2",
                  active
                    ? "border-brand-600 text-gray-900 lg:bg-gray-100"
                    : "border-transparent text-gray-600 hover:text-gray-900 lg:hover:bg-gray-50",
                )}
              >
                {section.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
