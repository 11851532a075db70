// Medians and tables for the web benchmark (bench_web.mjs).

/** `{median, min, max, n}` of the finite numbers in `values` (null when none). */
export function summary(values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], n: sorted.length };
}

export const ms = (v) => (v == null ? '—' : v >= 100 ? `${Math.round(v)}` : v.toFixed(1));
export const mib = (bytes) => (bytes == null ? '—' : (bytes / 2 ** 20).toFixed(1));

/** `median (min–max)` in ms, or "—". */
export function cell(s, fmt = ms) {
  if (!s) return '—';
  return s.n > 1 ? `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})` : fmt(s.median);
}

/** A plain-text table: `rows` are arrays of strings, the first column left-aligned. */
export function table(title, header, rows) {
  const all = [header, ...rows];
  const widths = header.map((_, c) => Math.max(...all.map((r) => String(r[c] ?? '').length)));
  const line = (r) => r.map((v, c) => (c === 0 ? String(v ?? '').padEnd(widths[c]) : String(v ?? '').padStart(widths[c]))).join('  ');
  return [`\n${title}`, line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
