/** Statement-sized slices: SQLite allows a bounded number of bound values per statement. */
export function chunks<T>(items: readonly T[], size = 100): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
