/** Where progress goes: stderr, so stdout stays clean for data. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** Reports `done` of `total` steps; `finish()` ends the bar or prints the last line. */
export interface Progress {
  update(done: number, total: number): void;
  finish(message?: string): void;
}

const BAR_WIDTH = 24;
/** Without a terminal, one line per tenth of the work. */
const PLAIN_STEPS = 10;

/**
 * Progress on stderr: a redrawn bar on a terminal, plain lines otherwise (logs, pipes, CI).
 *
 * @example
 * ```ts
 * const progress = createProgress("importing");
 * progress.update(10, 40);
 * progress.finish("imported 40 messages");
 * ```
 */
export function createProgress(
  label: string,
  stream: ProgressStream = process.stderr,
): Progress {
  return stream.isTTY
    ? barProgress(label, stream)
    : plainProgress(label, stream);
}

// --- Internal helpers ---

function barProgress(label: string, stream: ProgressStream): Progress {
  let drawn = false;
  let lastDraw = 0;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - lastDraw < 50) return;
      lastDraw = now;
      const ratio = total === 0 ? 1 : Math.min(done / total, 1);
      const filled = Math.round(ratio * BAR_WIDTH);
      stream.write(
        `\r${label} [${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}] ${done}/${total}`,
      );
      drawn = true;
    },
    finish(message) {
      if (drawn) stream.write("\r\x1b[2K");
      if (message) stream.write(`${message}\n`);
    },
  };
}

function plainProgress(label: string, stream: ProgressStream): Progress {
  let lastStep = -1;
  return {
    update(done, total) {
      const step =
        total === 0 ? PLAIN_STEPS : Math.floor((done / total) * PLAIN_STEPS);
      if (step === lastStep) return;
      lastStep = step;
      stream.write(`${label}: ${done}/${total}\n`);
    },
    finish(message) {
      if (message) stream.write(`${message}\n`);
    },
  };
}
