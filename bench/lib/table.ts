/** Prints a titled plain-text table with columns padded to their widest cell; numbers align right. */
export function printTable(title: string, head: string[], rows: string[][], notes: string[] = []): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = head.map((_, i) => rows.length > 0 && rows.every((r) => /^[-+]?[\d.,]+(×|%| ms| µs| KB| MB| B)?$|^-$/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [``, title, '='.repeat(title.length), line(head), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows) out.push(line(r));
  for (const n of notes) out.push(`  ${n}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
