import { bestPeer, type Config, figuresFor, type PerCallResult, type PerCallRun, TRANSPORT_PACKAGES } from './percall.js';
import { fmt, median, ratio, signTestP } from './lib/stats.js';
import { printTable } from './lib/table.js';
import { roundRatios, spansPerSecond, type ThroughputRun } from './throughput.js';

/** One goal of issue 8, checked against this run's figures. */
export interface GoalCheck {
  goal: string;
  measured: string;
  verdict: 'PASS' | 'FAIL' | 'NEAR' | 'NOISE' | 'UNKNOWN';
}

const OVERHEAD_GOAL = 0.25;

function perCallGoals(perCall: PerCallResult): GoalCheck[] {
  const checks: GoalCheck[] = [];
  for (const [transport, openai] of TRANSPORT_PACKAGES) {
    const runs = perCall.runs.filter((r) => r.openai === openai && r.transport === transport);
    if (runs.length === 0) continue;
    for (const mode of ['plain', 'stream'] as const) {
      const figures = figuresFor(runs, mode);
      const weft = figures.get('weft');
      for (const key of ['added', 'addedCpu'] as const) {
        const best = bestPeer(figures, key);
        const what = `${transport}: ${openai} ${mode === 'plain' ? 'non-streaming' : 'streaming'} ${key === 'added' ? 'wall' : 'CPU'} overhead ≤ ${OVERHEAD_GOAL}× best peer`;
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
  }
  return checks;
}

/** Fewer paired rounds than this cannot tell a systematic difference from chance. */
const MIN_ROUNDS = 3;

/** weft's median time to first chunk minus the uninstrumented one, round by round, and the baseline's medians. */
function firstChunkPairs(runs: PerCallRun[]): { added: number[]; base: number[] } {
  const ok = (c: Config) => runs.filter((r) => r.config === c && r.status === 'ok' && r.stream);
  const base = new Map(ok('none').map((r) => [r.round, r.stream!.medianFirstChunkUs]));
  const added = ok('weft')
    .filter((r) => base.has(r.round))
    .map((r) => r.stream!.medianFirstChunkUs - base.get(r.round)!);
  return { added, base: [...base.values()] };
}

/**
 * Within noise only if weft's median added time is no larger than the baseline's own spread between rounds AND it
 * was not positive in every round: a cost paid in every one of n rounds is systematic (if weft added nothing, each
 * round would be as likely to come out negative, and all n positive has a chance of 1 in 2^n), however small.
 */
function firstChunkVerdict(added: number[], spread: number): GoalCheck['verdict'] {
  if (added.length < MIN_ROUNDS || !Number.isFinite(spread)) return 'UNKNOWN';
  const everyRound = added.every((d) => d > 0);
  return !everyRound && median(added) <= spread ? 'PASS' : 'FAIL';
}

const signed = (v: number) => `${v >= 0 ? '+' : ''}${fmt(v, 1)}`;

function firstChunkGoals(perCall: PerCallResult): GoalCheck[] {
  return TRANSPORT_PACKAGES.flatMap(([transport, openai]) => {
    const runs = perCall.runs.filter((r) => r.openai === openai && r.transport === transport);
    if (runs.length === 0) return [];
    const goal = `${transport}: ${openai}: no added time to first chunk beyond noise`;
    const weft = figuresFor(runs, 'stream').get('weft');
    if (!weft?.status.startsWith('ok')) return [{ goal, measured: `weft ${weft?.status ?? 'not run'}`, verdict: 'UNKNOWN' as const }];
    const { added, base } = firstChunkPairs(runs);
    const spread = base.length > 1 ? Math.max(...base) - Math.min(...base) : Number.NaN;
    const positive = added.filter((d) => d > 0).length;
    const measured =
      `${signed(median(added))} µs (rounds: ${added.map((d) => signed(d)).join(', ')}); positive in ${positive} of ${added.length} rounds; ` +
      `baseline spread ${fmt(spread, 1)} µs`;
    return [{ goal, measured, verdict: firstChunkVerdict(added, spread) }];
  });
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

/** A sign test below this chance counts as a difference that holds beyond round-to-round noise. */
const SIGNIFICANT = 0.05;

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

/** Checks the goals of issue 8 against this run, and prints them. */
export function checkGoals(perCall: PerCallResult | undefined, throughput: ThroughputRun[] | undefined): GoalCheck[] {
  const checks = [
    ...(perCall ? [...perCallGoals(perCall), ...firstChunkGoals(perCall)] : []),
    ...(throughput ? [throughputGoal(throughput)] : []),
  ];
  if (checks.length === 0) return checks;
  printTable(
    'Goals (issue 8)',
    ['goal', 'measured', 'verdict'],
    checks.map((c) => [c.goal, c.measured, c.verdict]),
    [
      'Overheads are taken round by round against the uninstrumented run of the same round (median over rounds).',
      'Per-call overhead: NOISE = the best peer measured as free, so this run\'s noise is larger than the costs compared.',
      'First chunk: PASS only if weft\'s median added time is within the uninstrumented baseline\'s spread between rounds',
      `(max − min of its medians) AND not positive in every round; positive in all n rounds (n ≥ ${MIN_ROUNDS}) is a systematic cost,`,
      'a chance of 1 in 2^n if weft added nothing: FAIL. In memory the baseline hardly spreads, so small costs show there.',
      'Throughput: weft ÷ stock round by round, over rounds where both delivered every span. PASS: median ≥ 1. NOISE: below 1,',
      `but a sign test on the rounds weft was slower in gives a chance ≥ ${SIGNIFICANT} if both were level, and the gap is within`,
      'stock\'s spread between rounds. NEAR: otherwise within 5%.',
      `FAIL: otherwise, or weft lost spans in a round where stock lost none. UNKNOWN: fewer than ${MIN_ROUNDS} comparable rounds.`,
      'Figures from a --quick run or a busy machine are not meaningful.',
    ],
  );
  return checks;
}
