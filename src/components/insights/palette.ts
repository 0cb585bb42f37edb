/** Series colours: distinct at a glance and readable on white, in the order series get them. */
export const PALETTE = ["#4f46e5", "#0891b2", "#d97706", "#db2777", "#16a34a", "#7c3aed", "#dc2626", "#0d9488", "#ca8a04", "#2563eb", "#6b7280"];
export const colorAt = (index: number) => PALETTE[index % PALETTE.length]!;
