import type { ReactNode } from "react";
import { LogoMark } from "@/components/logo";

export interface AuthShellProps {
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  /** Below the card: a hint or a link to another auth page. */
  footer?: ReactNode;
  testId?: string;
}

/** The frame of the signed-out pages (sign up, sign in, invites): one centred card. */
export function AuthShell({ title, description, children, footer, testId }: AuthShellProps) {
  return (
    <div className="flex min-h-dvh flex-col items-center bg-gray-50 px-4 py-10 sm:justify-center sm:py-16">
      <main id="main" className="w-full max-w-md" data-testid={testId}>
        <div className="mb-6 flex flex-col items-center text-center">
          <LogoMark className="size-10" title="Burrow" />
          <h1 className="mt-5 text-2xl font-semibold tracking-tight text-gray-900">{title}</h1>
          {description && <p className="mt-2 text-base text-gray-600">{description}</p>}
        </div>
        <div className="rounded-card border border-gray-200 bg-white px-5 py-6 shadow-card sm:px-8 sm:py-8">{children}</div>
        {footer && <div className="mt-6 text-center text-sm text-gray-600">{footer}</div>}
      </main>
    </div>
  );
}
