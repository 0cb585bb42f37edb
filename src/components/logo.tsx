import { cn } from "@/components/ui/cn";

/** Burrow's mark: a mound with its entrance, on a clay tile. Decorative unless `title` is given. */
export function LogoMark({ className, title }: { className?: string; title?: string }) {
  return (
    <svg
      viewBox="0 0 32 32"
      className={cn("size-8", className)}
      role={title ? "img" : undefined}
      aria-hidden={title ? undefined : true}
      aria-label={title}
    >
      <rect width="32" height="32" rx="8" className="fill-brand-600" />
      <path d="M5 23.5c1.6-6.4 5.9-10.5 11-10.5s9.4 4.1 11 10.5Z" fill="#fff" />
      <path d="M12 23.5a4 4.5 0 0 1 8 0Z" className="fill-brand-800" />
    </svg>
  );
}

/** The mark and the name, as used in headers. */
export function Logo({ className }: { className?: string }) {
  return (
    <span className={cn("inline-flex items-center gap-2.5", className)}>
      <LogoMark className="size-7" />
      <span className="text-base font-semibold tracking-tight text-gray-900">Burrow</span>
    </span>
  );
}
