import { runDevCommand, UsageError } from '../dev/cli.js';

const USAGE = `Usage: weft <command> [options]

Commands:
  dev           start the local stand-in for the trace, inference and training services
  jobs watch    follow a training job's events until it ends

Run "weft <command> --help" for a command's options.
`;

async function dev(argv: string[]): Promise<number> {
  // Run until interrupted; close cleanly so that the data file is flushed. The signals are heard from before the
  // service says it listens: one that came between the two would end the process by Node's default, unclosed.
  let interrupted!: () => void;
  const interruption = new Promise<void>((resolve) => {
    interrupted = resolve;
  });
  // SIGHUP too: closing the terminal it runs in must not end it unclosed, its data file unflushed.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const stop = () => {
    for (const signal of signals) process.off(signal, stop);
    interrupted();
  };
  for (const signal of signals) process.on(signal, stop);
  try {
    const service = await runDevCommand(argv);
    if (!service) return 0;
    await interruption;
    await service.close();
    return 0;
  } finally {
    for (const signal of signals) process.off(signal, stop);
  }
}

const JOBS_USAGE = `Usage: weft jobs <subcommand> [options]

Subcommands:
  watch <job-id>   follow a training job's events until it ends

Run "weft jobs watch --help" for its options.
`;

const HELP = new Set(['-h', '--help', 'help']);

/**
 * Prints `usage` when it was asked for (exit code 0) or when no (sub)command was given (2, as for a mistake);
 * returns undefined for anything else.
 */
function printUsageIfAsked(arg: string | undefined, usage: string): number | undefined {
  if (arg !== undefined && !HELP.has(arg)) return undefined;
  process.stdout.write(usage);
  return arg === undefined ? 2 : 0;
}

async function jobs(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const usage = printUsageIfAsked(sub, JOBS_USAGE);
  if (usage !== undefined) return usage;
  if (sub !== 'watch') {
    process.stderr.write(`weft jobs: unknown subcommand "${sub}".\n\n${JOBS_USAGE}`);
    return 2;
  }
  const { runJobsWatch } = await import('./jobs-watch.js');
  return runJobsWatch(rest);
}

/** The `weft` command: dispatches to a subcommand and sets the exit code. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const usage = printUsageIfAsked(command, USAGE);
  if (usage !== undefined) return usage;
  switch (command) {
    case 'dev':
      return dev(rest);
    case 'jobs':
      return jobs(rest);
    default:
      process.stderr.write(`weft: unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`weft: ${error.message}\nRun "weft dev --help" for the options.\n`);
      process.exitCode = 2;
      return;
    }
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'EADDRINUSE') {
      // Named, since the default port is nowhere on the command line: often it is a weft dev started before.
      const { address, port } = error as { address?: unknown; port?: unknown };
      const where = typeof address === 'string' && typeof port === 'number' ? `${address.includes(':') ? `[${address}]` : address}:${port}` : 'the port';
      process.stderr.write(
        `weft: ${where} is already in use (by a weft dev started before?); pick another port with --port N (0 picks a free one).\n`,
      );
    } else {
      const message = (error as Error)?.message ?? String(error);
      // weft's own errors say `weft: …` or `weft dev: …` themselves.
      process.stderr.write(`${/^weft( dev)?: /.test(message) ? '' : 'weft: '}${message}\n`);
    }
    process.exitCode = 1;
  },
);
