import { runDevCommand, UsageError } from '../dev/cli.js';

const USAGE = `Usage: weft <command> [options]

Commands:
  dev           start the local stand-in for the trace, inference and training services
  jobs watch    follow a training job's events until it ends

Run "weft <command> --help" for a command's options.
`;

async function dev(argv: string[]): Promise<number> {
  const service = await runDevCommand(argv);
  if (!service) return 0;
  // Run until interrupted; close cleanly so that the data file is flushed.
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      void service.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}

async function jobs(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'watch') {
    process.stderr.write(`weft jobs: unknown subcommand "${sub ?? ''}"; try "weft jobs watch <job-id>".\n`);
    return 2;
  }
  const { runJobsWatch } = await import('./jobs-watch.js');
  return runJobsWatch(rest);
}

/** The `weft` command: dispatches to a subcommand and sets the exit code. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'dev':
      return dev(rest);
    case 'jobs':
      return jobs(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
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
      process.stderr.write('weft: the port is already in use; pick another with --port N (0 picks a free one).\n');
    } else {
      process.stderr.write(`weft: ${(error as Error)?.message ?? String(error)}\n`);
    }
    process.exitCode = 1;
  },
);
