import { serializeWithinLimits, encodeItem } from '/work/main/src/instrumentation/chat/truncate.ts';
let bad = 0;
function rnd(n: number) { return Math.floor(Math.random() * n); }
function str() { const chars = ['a', '"', '\\', '\n', 'é', '😀', '\u0001', '<']; let s = ''; const len = rnd(5000); for (let i = 0; i < len; i++) s += chars[rnd(chars.length)]; return s; }
function item(depth = 0): unknown {
  if (depth > 3) return str();
  const r = rnd(4);
  if (r === 0) return { role: 'user', parts: [{ type: 'text', content: str() }] };
  if (r === 1) return { role: 'tool', parts: Array.from({ length: rnd(20) }, () => ({ type: 'tool_call', name: 'x', arguments: Object.fromEntries(Array.from({ length: rnd(300) }, (_, i) => ['key' + i, i % 2 ? str().slice(0, 10) : i])) })) };
  return { role: 'user', parts: Array.from({ length: rnd(5) }, () => ({ type: 'text', content: str(), extra: item(depth + 1) })) };
}
let n = 0;
for (let i = 0; i < 400; i++) {
  const items = Array.from({ length: rnd(30) + 1 }, () => item());
  const perItem = 256 + rnd(4000);
  const total = 256 + rnd(40000);
  const out = serializeWithinLimits(items, perItem, total, (k) => ({ role: '_truncated', parts: [{ type: 'text', content: `…[${k}]` }] }));
  if (out !== undefined) { n++;
  try { JSON.parse(out); } catch { bad++; console.log('invalid json'); }
  if (out.length > total) { bad++; console.log('too long', out.length, total); } }
  for (const it of items) { const e = encodeItem(it, perItem); if (e.length > perItem) { bad++; console.log('item too long', e.length, perItem); break; } JSON.parse(e); }
}
console.log('bad', bad, 'serialized', n);
