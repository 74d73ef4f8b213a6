import { bestPeer, type Config, figuresFor, PEERS, type PerCallResult, type PerCallRun, TRANSPORT_PACKAGES } from './percall.js';
import { type FaultResult, faultGoals } from './faults.js';
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

/**
 * How `config` compares with `other`, slice by slice. A side is ahead beyond chance when a one-sided sign test on
 * the slices puts it there (below {@link SIGNIFICANT} if both were level) AND its median is ahead within every child
 * process: slices of one process share that process's luck (JIT, memory layout), so they are not independent
 * draws, and a difference that one lucky process makes must not pass for a systematic one.
 */
interface Comparison {
  /** Median of `config` − `other` over the slices. */
  median: number;
  slices: number;
  /** Slices in which `config`'s value was the higher, and the lower. */
  higher: number;
  lower: number;
  /** Chance of that many slices or more if both were level. */
  pHigher: number;
  processes: number;
  /** Processes whose median difference is positive. */
  processesHigher: number;
  higherBeyondChance: boolean;
  lowerBeyondChance: boolean;
}

function compare(runs: PerCallRun[], config: Config, other: Config, mode: Mode, pick: (r: PerCallRun) => number): Comparison {
  const ok = (c: Config) => runs.filter((r) => r.config === c && r.status === 'ok' && r[mode]);
  const others = new Map(ok(other).map((r) => [r.slice, pick(r)]));
  const pairs = ok(config)
    .filter((r) => others.has(r.slice))
    .map((r) => ({ process: r.process, diff: pick(r) - others.get(r.slice)! }));
  const diffs = pairs.map((p) => p.diff);
  const byProcess = [...new Set(pairs.map((p) => p.process))].map((proc) => median(pairs.filter((p) => p.process === proc).map((p) => p.diff)));
  const higher = diffs.filter((d) => d > 0).length;
  const lower = diffs.filter((d) => d < 0).length;
  const pHigher = signTestP(higher, diffs.length);
  const enough = diffs.length >= MIN_SLICES;
  return {
    median: median(diffs),
    slices: diffs.length,
    higher,
    lower,
    pHigher,
    processes: byProcess.length,
    processesHigher: byProcess.filter((m) => m > 0).length,
    higherBeyondChance: enough && pHigher < SIGNIFICANT && byProcess.every((m) => m > 0),
    lowerBeyondChance: enough && signTestP(lower, diffs.length) < SIGNIFICANT && byProcess.every((m) => m < 0),
  };
}

const signed = (v: number) => `${v >= 0 ? '+' : ''}${fmt(v, 1)}`;

/**
 * weft's time to first chunk against the uninstrumented client's, slice by slice: beyond noise when weft is the
 * slower beyond chance (see {@link compare}), however small the difference.
 */
function firstChunkGoals(perCall: PerCallResult): GoalCheck[] {
  const checks: GoalCheck[] = [];
  for (const { name, mode, runs, figures } of columns(perCall)) {
    if (mode !== 'stream') continue;
    const goal = `${name}: no added time to first chunk beyond noise`;
    const weft = figures.get('weft');
    if (!weft?.status.startsWith('ok')) {
      checks.push({ goal, measured: `weft ${weft?.status ?? 'not run'}`, verdict: 'UNKNOWN' });
      continue;
    }
    const added = compare(runs, 'weft', 'none', 'stream', (r) => r.stream!.medianFirstChunkUs);
    const base = runs.filter((r) => r.config === 'none' && r.status === 'ok' && r.stream).map((r) => r.stream!.medianFirstChunkUs);
    const measured =
      `${signed(added.median)} µs; slower in ${added.higher} of ${added.slices} slices (chance ${fmt(added.pHigher, 3)} if level) ` +
      `and in ${added.processesHigher} of ${added.processes} processes; baseline's slice medians p10–p90 ` +
      `${fmt(percentile(base, 10), 1)}–${fmt(percentile(base, 90), 1)} µs`;
    checks.push({ goal, measured, verdict: added.slices < MIN_SLICES ? 'UNKNOWN' : added.higherBeyondChance ? 'FAIL' : 'PASS' });
  }
  return checks;
}

/**
 * Issue 3: weft's cost the lowest of the four, against each peer that exported its spans, slice by slice (the
 * uninstrumented baseline cancels out of the comparison). PASS: weft is the cheaper beyond chance (see
 * {@link compare}) against every peer. FAIL: some peer is the cheaper beyond chance. NOISE: neither.
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
      const against = peers.map((peer) => ({ peer, ...compare(runs, 'weft', peer, mode, pick) }));
      const measured = against
        .map((a) => `${signed(a.median)} µs vs ${PEER_NAME[a.peer]} (lower in ${a.lower}/${a.slices} slices, ${a.processes - a.processesHigher}/${a.processes} processes)`)
        .join('; ');
      const verdict = against.some((a) => a.slices < MIN_SLICES)
        ? 'UNKNOWN'
        : against.some((a) => a.higherBeyondChance)
          ? 'FAIL'
          : against.every((a) => a.lowerBeyondChance)
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
export function checkGoals(perCall: PerCallResult | undefined, throughput: ThroughputRun[] | undefined, faults?: FaultResult): GoalCheck[] {
  const checks = [
    ...(perCall ? [...perCallGoals(perCall), ...firstChunkGoals(perCall), ...lowestOverheadGoals(perCall)] : []),
    ...(throughput ? [throughputGoal(throughput)] : []),
    ...(faults ? faultGoals(faults) : []),
  ];
  if (checks.length === 0) return checks;
  printTable(
    'Goals (issues 8 and 3)',
    ['goal', 'measured', 'verdict'],
    checks.map((c) => [c.goal, c.measured, c.verdict]),
    [
      'Overheads are taken slice by slice against the uninstrumented slice next to it in time (median over slices).',
      'Per-call overhead: NOISE = the best peer measured as free, so this run\'s noise is larger than the costs compared.',
      `Beyond chance: one side ahead in so many slices that a one-sided sign test gives a chance below ${SIGNIFICANT} if both were`,
      'level, AND ahead in the median of every child process (slices of one process share its luck).',
      'First chunk: FAIL when weft is slower than the uninstrumented client beyond chance: a systematic cost, however small.',
      'Lowest of the four (issue 3): weft against each peer that exported, slice by slice. PASS: cheaper than each beyond',
      'chance; FAIL: some peer cheaper beyond chance; NOISE: neither.',
      'Throughput: weft ÷ stock round by round, over rounds where both delivered every span. PASS: median ≥ 1. NOISE: below 1,',
      `but a sign test on the rounds weft was slower in gives a chance ≥ ${SIGNIFICANT} if both were level, and the gap is within`,
      'stock\'s spread between rounds. NEAR: otherwise within 5%.',
      `FAIL: otherwise, or weft lost spans in a round where stock lost none. UNKNOWN: fewer than ${MIN_ROUNDS} comparable rounds.`,
      'No stall: each misbehaving trace backend against weft with its backend up, slice by slice, on the median and the p99',
      `of the slice's call times. FAIL when either is slower in so many slices that a sign test gives a chance below ${SIGNIFICANT}.`,
      'Figures from a --quick run or a busy machine are not meaningful.',
    ],
  );
  return checks;
}
