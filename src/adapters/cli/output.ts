/** What a person reads for a value: `-` for nothing, RFC 3339 for times, lists joined by commas. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value))
    return value.length === 0 ? '-' : value.map((v) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : cell(v))).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  // Whitespace that would break a line or a column reads as one space.
  return String(value as string | number | boolean).replace(/[\r\n\t]+/g, ' ');
}

/** `agentId` → `AGENT ID`: every table's header row is written the same way. */
export const header = (field: string): string => field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toUpperCase();

/**
 * An aligned table: a header row, then one row per record, columns separated by two spaces
 * (the last column is not padded, so no line ends in spaces).
 */
export function table(rows: readonly Record<string, unknown>[], fields: readonly string[]): string {
  const lines = [fields.map(header), ...rows.map((r) => fields.map((f) => cell(r[f])))];
  const widths = fields.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  return lines.map((l) => l.map((c, i) => (i === l.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** `field: value` lines, one per field of the result in its order; nested objects as `outer.inner`. */
export function fields(result: Record<string, unknown>, prefix = ''): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)) {
      const nested = fields(value as Record<string, unknown>, `${prefix}${key}.`);
      if (nested !== '') lines.push(nested);
    } else {
      lines.push(`${prefix}${key}: ${cell(value)}`);
    }
  }
  return lines.join('\n');
}
