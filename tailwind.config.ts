import type { Config } from "tailwindcss";

/**
 * Burrow's design tokens. Tailwind 4 reads this file through `@config` in
 * src/app/globals.css; everything else about Tailwind (sources, utilities) is CSS-first.
 *
 * - `brand-*`: the clay orange of the logo. Text and filled controls use 600 or darker
 *   (white on brand-600 is 5.2:1, WCAG AA).
 * - `gray-*`: cool neutral greys for surfaces, borders and text (replaces Tailwind's gray).
 *   Body text is gray-900, secondary text gray-600, hints gray-500 (AA on white and gray-50).
 * - `rounded-control` / `rounded-card`, `shadow-card`, `font-sans` / `font-mono`.
 */
export default {
  theme: {
    extend: {
      colors: {
        brand: {
          50: "#fff7ed",
          100: "#ffedd5",
          200: "#fed7aa",
          300: "#fdba74",
          400: "#fb923c",
          500: "#ea580c",
          600: "#c2410c",
          700: "#9a3412",
          800: "#7c2d12",
          900: "#5c210d",
          950: "#431407",
        },
        gray: {
          25: "#fcfcfd",
          50: "#f9fafb",
          100: "#f2f4f7",
          200: "#eaecf0",
          300: "#d0d5dd",
          400: "#98a2b3",
          500: "#667085",
          600: "#475467",
          700: "#344054",
          800: "#1d2939",
          900: "#101828",
          950: "#0c111d",
        },
      },
      borderRadius: {
        control: "0.5rem",
        card: "0.75rem",
      },
      boxShadow: {
        card: "0 1px 2px 0 rgb(16 24 40 / 0.04), 0 1px 3px 0 rgb(16 24 40 / 0.06)",
      },
      fontFamily: {
        sans: [
          "Inter",
          "ui-sans-serif",
          "system-ui",
          "-apple-system",
          "Segoe UI",
          "Roboto",
          "Helvetica Neue",
          "Liberation Sans",
          "Arial",
          "sans-serif",
        ],
        mono: ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "Liberation Mono", "monospace"],
      },
    },
  },
} satisfies Config;
