import { formatDuration } from "./duration";

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/**
 * A progress bar redrawn in place on a terminal; otherwise one line every `intervalMs`
 * (so logs of a cron job stay readable).
 */
export class ProgressReporter {
  private readonly started = performance.now();
  private lastDraw = 0;
  private lastDone = 0;
  private lastTotal = 0;

  constructor(
    private readonly stream: ProgressStream,
    private readonly label = "probe",
    private readonly intervalMs = stream.isTTY ? 100 : 5000,
  ) {}

  update(done: number, total: number) {
    this.lastDone = done;
    this.lastTotal = total;
    const now = performance.now();
    if (done < total && now - this.lastDraw < this.intervalMs) return;
    this.lastDraw = now;
    this.draw(done >= total);
  }

  /** Draws the final state and ends the line on a terminal. */
  finish() {
    if (this.stream.isTTY) {
      this.draw(true);
      this.stream.write("\n");
    }
  }

  line(done = this.lastDone, total = this.lastTotal): string {
    const elapsed = performance.now() - this.started;
    const rate = elapsed > 0 ? (done * 1000) / elapsed : 0;
    const pct = total > 0 ? Math.floor((done * 100) / total) : 100;
    const eta = rate > 0 && done < total ? ` ETA ${formatDuration(((total - done) / rate) * 1000)}` : "";
    return `${done}/${total} ${pct}% ${rate.toFixed(1)}/s elapsed ${formatDuration(elapsed)}${eta}`;
  }

  private draw(final: boolean) {
    const text = this.line();
    if (!this.stream.isTTY) {
      if (!final || this.lastTotal > 0) this.stream.write(`${this.label}: ${text}\n`);
      return;
    }
    const width = Math.max(10, Math.min(40, (this.stream.columns ?? 80) - text.length - this.label.length - 6));
    const filled = this.lastTotal > 0 ? Math.round((this.lastDone / this.lastTotal) * width) : width;
    this.stream.write(`\r${this.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${text}\x1b[K`);
  }
}
