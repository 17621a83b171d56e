/**
 * Runs `close` once on the first SIGINT or SIGTERM (Ctrl-C reaches every process of the group, and the
 * launcher forwards signals too, so a second signal must not start a second shutdown). A shutdown that
 * takes longer than `timeoutMs` (SHUTDOWN_TIMEOUT_MS) is cut short with exit code 1.
 */
export function onShutdownSignal(close: (signal: NodeJS.Signals) => Promise<void>, timeoutMs = 25_000): void {
  let closing = false;
  const handler = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    const timer = setTimeout(() => {
      process.stderr.write(`shutdown took longer than ${timeoutMs} ms; exiting\n`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    close(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
