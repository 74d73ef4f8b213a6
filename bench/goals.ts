import { bestPeer, type Config, figuresFor, PEERS, type PerCallResult, type PerCallRun, TRANSPORT_PACKAGES } from './percall.js';
import { fmt, median, percentile, ratio, signTestP } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { roundRatios, spansPerSecond, type ThroughputRun } from './throughput.js';

/** One goal of issue 8, checked against this run's figures. */
export interface GoalCheck {
  goal: string;
  measured: string;
  verdict: 'PASS' | 'FAIL' | 'NEAR' | 'NOISE' | 'UNKNOWN';
}

const OVERHEAD_GOAL = 0.25;

/** One column of the per-call tables that ran (transport × `openai` package × mode), with its runs and figures. */
interface Column {
  name: string;
  mode: 'plain' | 'stream';
  runs: PerCallRun[];
  figures: ReturnType<typeof figuresFor>;
}

function* columns(perCall: PerCallResult): Generator<Column> {
  for (const [transport, openai] of TRANSPORT_PACKAGES) {
    const runs = perCall.runs.filter((r) => r.openai === openai && r.transport === transport);
    if (runs.length === 0) continue;
    for (const mode of ['plain', 'stream'] as const) {
      const name = `${transport}: ${openai} ${mode === 'plain' ? 'non-streaming' : 'streaming'}`;
      yield { name, mode, runs, figures: figuresFor(runs, mode) };
    }
  }
}

function perCallGoals(perCall: PerCallResult): GoalCheck[] {
  const checks: GoalCheck[] = [];
  for (const { name, figures } of columns(perCall)) {
    const weft = figures.get('weft');
    for (const key of ['added', 'addedCpu'] as const) {
      const best = bestPeer(figures, key);
      const what = `${name} ${key === 'added' ? 'wall' : 'CPU'} overhead ≤ ${OVERHEAD_GOAL}× best peer`;
      if (!weft?.status.startsWith('ok') || !Number.isFinite(best)) {
        checks.push({ goal: what, measured: weft?.status.startsWith('ok') ? 'no peer exported spans' : `weft ${weft?.status ?? 'not run'}`, verdict: 'UNKNOWN' });
        continue;
      }
      const measured = `${fmt(weft[key], 1)} µs vs ${fmt(best, 1)} µs`;
      if (best <= 0) {
        // The best peer measured as free: this run's noise is larger than the costs compared.
        checks.push({ goal: what, measured: `${measured}: below noise`, verdict: 'NOISE' });
        continue;
      }
      const r = weft[key] / best;
      checks.push({ goal: what, measured: `${measured} = ${ratio(r)}`, verdict: r <= OVERHEAD_GOAL ? 'PASS' : 'FAIL' });
    }
  }
  return checks;
}

/** Fewer paired rounds than this cannot tell a systematic difference from chance. */
const MIN_ROUNDS = 3;
/** With fewer paired slices than this, a one-sided sign test cannot come below {@link SIGNIFICANT} (1 in 2^n). */
const MIN_SLICES = 5;
/** Peers by short name, for the goal lines. */
const PEER_NAME: Partial<Record<Config, string>> = { otel: 'OTel contrib', arize: 'arize', traceloop: 'traceloop' };

/** A sign test below this chance counts as a difference that holds beyond round-to-round noise. */
const SIGNIFICANT = 0.05;

type Mode = 'plain' | 'stream';

/** `config`'s value minus `other`'s, slice by slice, over the slices in which both ran. */
function pairedDifferences(runs: PerCallRun[], config: Config, other: Config, mode: Mode, pick: (r: PerCallRun) => number): number[] {
  const ok = (c: Config) => runs.filter((r) => r.config === c && r.status === 'ok' && r[mode]);
  const others = new Map(ok(other).map((r) => [r.slice, pick(r)]));
  return ok(config)
    .filter((r) => others.has(r.slice))
    .map((r) => pick(r) - others.get(r.slice)!);
}

const signed = (v: number) => `${v >= 0 ? '+' : ''}${fmt(v, 1)}`;

/**
 * weft's time to first chunk against the uninstrumented client's, slice by slice. Beyond noise when a one-sided
 * sign test on the slices in which weft was the slower says it holds beyond chance (if weft added nothing, each
 * slice would be as likely to come out either way), however small the difference.
 */
function firstChunkGoals(perCall: PerCallResult): GoalCheck[] {
  return TRANSPORT_PACKAGES.flatMap(([transport, openai]) => {
    const runs = perCall.runs.filter((r) => r.openai === openai && r.transport === transport);
    if (runs.length === 0) return [];
    const goal = `${transport}: ${openai}: no added time to first chunk beyond noise`;
    const weft = figuresFor(runs, 'stream').get('weft');
    if (!weft?.status.startsWith('ok')) return [{ goal, measured: `weft ${weft?.status ?? 'not run'}`, verdict: 'UNKNOWN' as const }];
    const added = pairedDifferences(runs, 'weft', 'none', 'stream', (r) => r.stream!.medianFirstChunkUs);
    const base = runs.filter((r) => r.config === 'none' && r.status === 'ok' && r.stream).map((r) => r.stream!.medianFirstChunkUs);
    const positive = added.filter((d) => d > 0).length;
    const p = signTestP(positive, added.length);
    const measured =
      `${signed(median(added))} µs; slower in ${positive} of ${added.length} slices (chance ${fmt(p, 3)} if level); ` +
      `baseline's slice medians p10–p90 ${fmt(percentile(base, 10), 1)}–${fmt(percentile(base, 90), 1)} µs`;
    const verdict = added.length < MIN_SLICES ? 'UNKNOWN' : p < SIGNIFICANT ? 'FAIL' : 'PASS';
    return [{ goal, measured, verdict }];
  });
}

/**
 * Issue 3: weft's cost the lowest of the four, against each peer that exported its spans, slice by slice (the
 * uninstrumented baseline cancels out of the comparison). PASS: weft was the cheaper in so many slices against each
 * peer that a one-sided sign test puts it beyond chance. FAIL: some peer was the cheaper beyond chance. NOISE: neither.
 */
function lowestOverheadGoals(perCall: PerCallResult): GoalCheck[] {
  const checks: GoalCheck[] = [];
  for (const { name, mode, runs, figures } of columns(perCall)) {
    const peers = PEERS.filter((c) => figures.get(c)?.status.startsWith('ok'));
    for (const [metric, pick] of [
      ['wall', (r: PerCallRun) => r[mode]!.medianWallUs],
      ['CPU', (r: PerCallRun) => r[mode]!.cpuUsPerCall],
    ] as const) {
      const goal = `${name} ${metric}: lowest overhead of the four`;
      if (!figures.get('weft')?.status.startsWith('ok') || peers.length === 0) {
        checks.push({ goal, measured: peers.length === 0 ? 'no peer exported spans' : 'weft did not run', verdict: 'UNKNOWN' });
        continue;
      }
      const against = peers.map((peer) => {
        const diffs = pairedDifferences(runs, 'weft', peer, mode, pick);
        const lower = diffs.filter((d) => d < 0).length;
        return { peer, diff: median(diffs), n: diffs.length, lower, pLower: signTestP(lower, diffs.length), pHigher: signTestP(diffs.length - lower, diffs.length) };
      });
      const measured = against
        .map((a) => `${signed(a.diff)} µs vs ${PEER_NAME[a.peer]} (lower in ${a.lower}/${a.n})`)
        .join('; ');
      const verdict = against.some((a) => a.n < MIN_SLICES)
        ? 'UNKNOWN'
        : against.some((a) => a.pHigher < SIGNIFICANT)
          ? 'FAIL'
          : against.every((a) => a.pLower < SIGNIFICANT)
            ? 'PASS'
            : 'NOISE';
      checks.push({ goal, measured, verdict });
    }
  }
  return checks;
}

/** Rounds in which weft lost spans while the stock pipeline delivered every one. */
function weftLossesAlone(runs: ThroughputRun[]): number {
  const stockComplete = new Set(runs.filter((r) => r.pipeline === 'stock' && r.status === 'complete').map((r) => r.round));
  return runs.filter((r) => r.pipeline === 'weft' && r.status !== 'complete' && stockComplete.has(r.round)).length;
}

/** How far the stock pipeline's complete runs spread between rounds, as a fraction of their median. */
function stockSpread(runs: ThroughputRun[]): number {
  const rates = runs.filter((r) => r.pipeline === 'stock').map(spansPerSecond).filter(Number.isFinite);
  return rates.length > 1 ? (Math.max(...rates) - Math.min(...rates)) / median(rates) : Number.NaN;
}

/**
 * Judged on the rounds in which both pipelines delivered every span, weft's rate over stock's round by round:
 * PASS at a median of 1 or more. Below 1, a one-sided sign test on the rounds weft was the slower in says whether
 * that holds beyond chance: if not, and the gap is within the stock pipeline's own spread between rounds, NOISE.
 * Otherwise NEAR within 5%, else FAIL; FAIL too when weft lost spans in a round where the stock pipeline lost none.
 */
function throughputGoal(runs: ThroughputRun[]): GoalCheck {
  const goal = 'export throughput not below the stock pipeline';
  const ratios = roundRatios(runs);
  const lost = weftLossesAlone(runs);
  if (lost > 0) return { goal, measured: `weft lost spans in ${lost} round(s) where the stock pipeline lost none`, verdict: 'FAIL' };
  if (ratios.length < MIN_ROUNDS) return { goal, measured: `only ${ratios.length} round(s) in which both delivered every span`, verdict: 'UNKNOWN' };
  const r = median(ratios);
  const slower = ratios.filter((x) => x < 1).length;
  const p = signTestP(slower, ratios.length);
  const spread = stockSpread(runs);
  const measured =
    `${ratio(r)} of stock (median of ${ratios.length} rounds); weft slower in ${slower} (chance ${fmt(p, 3)} if level); ` +
    `stock's spread between rounds ${fmt(spread * 100, 0)}%`;
  if (r >= 1) return { goal, measured, verdict: 'PASS' };
  if (p >= SIGNIFICANT && 1 - r <= spread) return { goal, measured, verdict: 'NOISE' };
  return { goal, measured, verdict: r >= 0.95 ? 'NEAR' : 'FAIL' };
}

/** Checks the goals of issue 8 (and issue 3's lowest overhead) against this run, and prints them. */
export function checkGoals(perCall: PerCallResult | undefined, throughput: ThroughputRun[] | undefined): GoalCheck[] {
  const checks = [
    ...(perCall ? [...perCallGoals(perCall), ...firstChunkGoals(perCall), ...lowestOverheadGoals(perCall)] : []),
    ...(throughput ? [throughputGoal(throughput)] : []),
  ];
  if (checks.length === 0) return checks;
  printTable(
    'Goals (issues 8 and 3)',
    ['goal', 'measured', 'verdict'],
    checks.map((c) => [c.goal, c.measured, c.verdict]),
    [
      'Overheads are taken slice by slice against the uninstrumented slice next to it in time (median over slices).',
      'Per-call overhead: NOISE = the best peer measured as free, so this run\'s noise is larger than the costs compared.',
      `First chunk: FAIL when weft was slower than uninstrumented in so many slices that a one-sided sign test gives a chance`,
      `below ${SIGNIFICANT} if it added nothing: a systematic cost, however small. PASS otherwise.`,
      `Lowest of the four (issue 3): weft against each peer that exported, slice by slice. PASS: lower than each beyond chance`,
      `(sign test < ${SIGNIFICANT}); FAIL: some peer lower beyond chance; NOISE: neither.`,
      'Throughput: weft ÷ stock round by round, over rounds where both delivered every span. PASS: median ≥ 1. NOISE: below 1,',
      `but a sign test on the rounds weft was slower in gives a chance ≥ ${SIGNIFICANT} if both were level, and the gap is within`,
      'stock\'s spread between rounds. NEAR: otherwise within 5%.',
      `FAIL: otherwise, or weft lost spans in a round where stock lost none. UNKNOWN: fewer than ${MIN_ROUNDS} comparable rounds.`,
      'Figures from a --quick run or a busy machine are not meaningful.',
    ],
  );
  return checks;
}
